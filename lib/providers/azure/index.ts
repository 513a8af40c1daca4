import { z } from "zod";
import { openAIChat, openAIOperations } from "@/lib/providers/openai";
import type { Provider } from "@/lib/providers/provider";
import { joinUrl, type Endpoint, type Transport } from "@/lib/providers/transport";
import type { Channel } from "@/lib/routing/channel";

// Azure OpenAI speaks OpenAI's wire format from its own URL layout, with the key in an
// `api-key` header. Two layouts, chosen by the channel's `apiVersion` setting:
// - dated (`apiVersion` set, e.g. 2024-10-21): each deployment has its own endpoints,
//   `{resource}/openai/deployments/{deployment}/chat/completions?api-version={v}`;
//   the Responses API and realtime are per resource, the deployment in the body or query.
// - v1 (no `apiVersion`): `{resource}/openai/v1/chat/completions`, the deployment as `model`.
// The model map names deployments: public model -> deployment.

/** Endpoints an Azure deployment serves under its own path in the dated API. */
const DEPLOYMENT_PATHS = new Set(["/chat/completions", "/completions", "/embeddings", "/images/generations", "/images/edits", "/audio/transcriptions", "/audio/speech"]);

const settingsSchema = z.strictObject({
  apiVersion: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}(-preview)?$/, "an API version such as 2024-10-21 or 2025-04-01-preview")
    .optional(),
});

/** Where an endpoint lives on this channel's resource, its API version's query built once. */
function azureUrls(channel: Channel): (endpoint: Endpoint) => string {
  const apiVersion = channel.settings.apiVersion as string | undefined;
  if (!apiVersion) return (endpoint) => joinUrl(channel.baseUrl, `/openai/v1${endpoint.path}`, endpoint.query);
  const version = `api-version=${encodeURIComponent(apiVersion)}`;
  return (endpoint) => {
    // Realtime names the deployment in the query, in place of OpenAI's `model`.
    if (endpoint.path === "/realtime") return joinUrl(channel.baseUrl, "/openai/realtime", `${version}&deployment=${encodeURIComponent(endpoint.model ?? "")}`);
    const path = DEPLOYMENT_PATHS.has(endpoint.path) && endpoint.model ? `/openai/deployments/${encodeURIComponent(endpoint.model)}${endpoint.path}` : `/openai${endpoint.path}`;
    return joinUrl(channel.baseUrl, path, endpoint.query ? `${version}&${endpoint.query}` : version);
  };
}

export function azureTransport(channel: Channel): Transport {
  const key = channel.apiKey;
  const url = azureUrls(channel);
  return {
    url,
    authorize(request) {
      if (key) request.headers["api-key"] = key;
    },
    async socket(endpoint) {
      const headers: Record<string, string> = key ? { "api-key": key } : {};
      return { url: url(endpoint).replace(/^http/, "ws"), headers };
    },
  };
}

/** Azure OpenAI: OpenAI's operations over Azure's URL layout and `api-key` header. */
export const azureProvider: Provider = {
  // Every resource has its own host: the base URL is required.
  defaultBaseUrl: "",
  requiresBaseUrl: true,
  baseUrlHelp: "Required: your resource's endpoint, https://RESOURCE.openai.azure.com (Azure portal, the resource's Keys and Endpoint page).",
  pastedSuffix: /\/openai(\/.*)?$/i,
  requiresApiKey: true,
  ownedBy: "azure",
  settings: {
    schema: settingsSchema,
    fields: [
      {
        name: "apiVersion",
        label: "API version",
        help: "Empty uses Azure's v1 API (/openai/v1, the deployment as the model). A dated version such as 2024-10-21 uses the deployment paths (/openai/deployments/NAME/...?api-version=...). The model map names each model's deployment.",
      },
    ],
  },
  transport: azureTransport,
  operations: openAIOperations,
  probe: openAIChat,
};
