import { z } from "zod";
import type { ProviderSettings } from "@/lib/providers/provider";

// A Vertex channel names the Google Cloud project and the location its requests go to;
// both land in the URL path (and the location in the default host), so only the
// characters Google allows in them are taken.

export const vertexSettingsSchema = z.strictObject({
  // Project ids: 6 to 30 lowercase letters, digits and hyphens (older ones carry a `domain:` prefix).
  project: z.string().regex(/^(?:[a-z][a-z0-9.-]*:)?[a-z][a-z0-9-]{4,28}[a-z0-9]$/, "a Google Cloud project id, such as my-project-123"),
  // Regions (us-central1, europe-west4), multi-regions (us, eu) and global.
  location: z.string().regex(/^[a-z][a-z0-9-]{1,39}$/, "a Vertex AI location, such as us-central1 or global"),
});

export type VertexSettings = z.infer<typeof vertexSettingsSchema>;

export const vertexSettings: ProviderSettings = {
  schema: vertexSettingsSchema,
  fields: [
    {
      name: "project",
      label: "Project ID",
      help: "The Google Cloud project that has the Vertex AI API enabled: the ID (not the name) on the console's project picker, also project_id in the service-account key.",
      required: true,
      placeholder: "my-project-123",
    },
    {
      name: "location",
      label: "Location",
      help: "Where the models run: a region such as us-central1 or europe-west4, a multi-region (us, eu), or global. Claude models are offered in a few regions only (see Model Garden).",
      required: true,
      placeholder: "us-central1",
    },
  ],
};

/** The settings of a channel as saved (validated by the schema then). */
export function readVertexSettings(settings: Record<string, unknown>): VertexSettings {
  return vertexSettingsSchema.parse(settings);
}
