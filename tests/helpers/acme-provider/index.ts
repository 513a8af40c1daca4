import { openAIOperations } from "@/lib/providers/openai";
import type { Provider } from "@/lib/providers/provider";
import { joinUrl } from "@/lib/providers/transport";
import { z } from "zod";

// A test-only provider type: an OpenAI-compatible service with its own URL layout
// (`/tenants/{tenant}/deployments/{model}/<endpoint>`) and its own auth header. It is what
// adding such a type takes: this folder and one line in a registry.

export const acmeProvider: Provider = {
  defaultBaseUrl: "http://127.0.0.1:9/acme",
  requiresApiKey: true,
  ownedBy: "acme",
  settings: {
    schema: z.strictObject({ tenant: z.string().regex(/^[a-z0-9-]+$/), signingSecret: z.string().min(8).optional() }),
    fields: [
      { name: "tenant", label: "Tenant", help: "Your tenant's name in the ACME console.", required: true },
      { name: "signingSecret", label: "Signing secret", help: "Optional.", secret: true },
    ],
  },
  transport: (channel) => ({
    url: (endpoint) =>
      joinUrl(channel.baseUrl, `/tenants/${String(channel.settings.tenant)}/deployments/${encodeURIComponent(endpoint.model ?? "")}${endpoint.path}`, endpoint.query),
    authorize(request) {
      if (channel.apiKey) request.headers["x-acme-key"] = channel.apiKey;
    },
  }),
  operations: openAIOperations,
};
