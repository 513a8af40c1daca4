import type { ChatRequest } from "@/lib/canonical/request";
import type { StreamEventBatches } from "@/lib/canonical/stream-event";
import { anthropicChat, anthropicOperations } from "@/lib/providers/anthropic";
import { geminiChat, geminiOperations } from "@/lib/providers/gemini";
import type { AttemptContext, Provider } from "@/lib/providers/provider";
import { vertexEmbeddingsMember } from "./embed";
import { byModelFamily } from "@/lib/providers/members/model-families";
import { modelFamily } from "./model-families";
import { withoutRefusedBetas } from "./refused-betas";
import { vertexSettings } from "./settings";
import { VERTEX_BASE_URL_TEMPLATE, vertexTransport } from "./transport";

// Google Vertex AI: Gemini models through Gemini's wire format and Claude models through
// Anthropic's, both over Vertex's transport (project and location in the path, a
// service account's OAuth2 token). Embeddings are Vertex's own `:predict`.

/** The channel check's chat, in the model's family. */
function vertexChat(request: ChatRequest, context: AttemptContext): Promise<StreamEventBatches> {
  return modelFamily(context.upstreamModel) === "anthropic" ? anthropicChat(request, context) : geminiChat(request, context);
}

export const vertexProvider: Provider = {
  defaultBaseUrl: VERTEX_BASE_URL_TEMPLATE,
  requiresApiKey: true,
  apiKeyHelp: "The service account's JSON key, pasted whole: IAM & Admin > Service accounts > (an account with the Vertex AI User role) > Keys > Add key > JSON.",
  ownedBy: "google",
  settings: vertexSettings,
  transport: vertexTransport,
  operations: byModelFamily(modelFamily, {
    anthropic: { ...anthropicOperations, chat: withoutRefusedBetas(anthropicOperations.chat!) },
    google: { ...geminiOperations, embeddings: vertexEmbeddingsMember },
  }),
  probe: vertexChat,
};
