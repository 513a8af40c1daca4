import type { ChatRequest } from "@/lib/canonical/request";
import type { StreamEventBatches } from "@/lib/canonical/stream-event";
import { chatMember, exactTokenCountMember, translatedCompactionMember, translatedResponsesMember } from "@/lib/providers/members/chat-members";
import type { AttemptContext, Provider, ProviderOperations } from "@/lib/providers/provider";
import { keyHeaderTransport } from "@/lib/providers/transport";
import { decodeSseBatches } from "@/lib/sse/decode-sse";
import { postGemini } from "./call-upstream";
import { geminiHostedTools, toGeminiBody } from "./convert-request";
import { geminiEmbeddingsMember } from "./embed";
import { listGeminiModels } from "./list-models";
import { geminiResponseEvents, parseGeminiStream } from "./parse-stream";
import { relayGenerateContent } from "./relay-generate-content";

/** Gemini's generateContent as the canonical chat (for clients of the other formats). */
export async function geminiChat(request: ChatRequest, context: AttemptContext): Promise<StreamEventBatches> {
  const body = await toGeminiBody(request, context);
  if (request.stream) {
    const response = await postGemini("streamGenerateContent", body, context, "alt=sse");
    return parseGeminiStream(decodeSseBatches(response.body));
  }
  const response = await postGemini("generateContent", body, context);
  const json = await response.body.json();
  return (async function* () {
    yield [...geminiResponseEvents(json)];
  })();
}

async function countTokens(request: ChatRequest, context: AttemptContext): Promise<number> {
  const { generationConfig: _config, ...body } = await toGeminiBody(request, context);
  const response = await postGemini("countTokens", { generateContentRequest: { model: `models/${context.upstreamModel}`, ...body } }, context);
  const json = (await response.body.json()) as { totalTokens?: number };
  return json.totalTokens ?? 0;
}

/** The operations of Gemini's wire format, for any transport that reaches it. */
export const geminiOperations: ProviderOperations = {
  chat: chatMember(geminiChat, { gemini: relayGenerateContent }),
  responses: translatedResponsesMember(geminiChat, geminiHostedTools),
  compact: translatedCompactionMember(geminiChat),
  embeddings: geminiEmbeddingsMember,
  "count-tokens": exactTokenCountMember(countTokens),
};

/** Google's Gemini API (generativelanguage, x-goog-api-key auth). */
export const geminiProvider: Provider = {
  defaultBaseUrl: "https://generativelanguage.googleapis.com/v1beta",
  versionSegment: "/v1beta",
  requiresApiKey: true,
  ownedBy: "google",
  transport: (channel) => keyHeaderTransport(channel, "x-goog-api-key"),
  listModels: listGeminiModels,
  operations: geminiOperations,
  probe: geminiChat,
};
