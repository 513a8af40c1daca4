import type { ChatRequest } from "@/lib/canonical/request";
import type { StreamEventBatches } from "@/lib/canonical/stream-event";
import type { CallContext, Provider } from "@/lib/providers/provider";
import { decodeSseBatches } from "@/lib/sse/decode-sse";
import { postGemini } from "./call-upstream";
import { toGeminiBody } from "./convert-request";
import { geminiResponseEvents, parseGeminiStream } from "./parse-stream";
import { embedWithGemini } from "./embed";
import { relayGenerateContent } from "./relay-generate-content";
import { listGeminiModels } from "./list-models";

async function chat(request: ChatRequest, context: CallContext): Promise<StreamEventBatches> {
  const body = await toGeminiBody(request, context);
  if (request.stream) {
    const response = await postGemini("streamGenerateContent", body, context, "?alt=sse");
    return parseGeminiStream(decodeSseBatches(response.body));
  }
  const response = await postGemini("generateContent", body, context);
  const json = await response.body.json();
  return (async function* () {
    yield [...geminiResponseEvents(json)];
  })();
}

async function countTokens(request: ChatRequest, context: CallContext): Promise<number> {
  const { generationConfig: _config, ...body } = await toGeminiBody(request, context);
  const response = await postGemini("countTokens", { generateContentRequest: { model: `models/${context.upstreamModel}`, ...body } }, context);
  const json = (await response.body.json()) as { totalTokens?: number };
  return json.totalTokens ?? 0;
}

/** Google's Gemini API (generativelanguage, x-goog-api-key auth). */
export const geminiProvider: Provider = {
  defaultBaseUrl: "https://generativelanguage.googleapis.com/v1beta",
  versionSegment: "/v1beta",
  listModels: listGeminiModels,
  requiresApiKey: true,
  ownedBy: "google",
  chat,
  countTokens,
  embeddings: embedWithGemini,
  relays: { "gemini:chat": relayGenerateContent },
};
