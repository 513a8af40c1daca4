import { carriedChat } from "@/lib/canonical/carried-strings";
import { encodeJson } from "@/lib/canonical/encode-json";
import type { ChatRequest } from "@/lib/canonical/request";
import type { StreamEventBatches } from "@/lib/canonical/stream-event";
import { chatMember } from "@/lib/providers/members/chat-members";
import type { AttemptContext, Provider, ProviderOperations } from "@/lib/providers/provider";
import { bearer, keyHeaderTransport } from "@/lib/providers/transport";
import { decodeSseBatches } from "@/lib/sse/decode-sse";
import { postOpenAI } from "./call-upstream";
import { toOpenAIChatBody } from "./convert-request";
import { openAITokenCountMember } from "./count-input-tokens";
import { listOpenAIModels } from "./list-models";
import { openAIResponseEvents, parseOpenAIStream } from "./parse-stream";
import { openAIRealtimeMember } from "./realtime";
import {
  chatCompletionsSpec,
  completionsSpec,
  embeddingsSpec,
  imageEditsSpec,
  imageGenerationsSpec,
  openAIMultipartRelay,
  openAIRelay,
  rerankSpec,
  speechSpec,
  transcriptionsSpec,
  type Relay,
} from "./relay-openai";
import { openAICompactionMember, openAIResponsesMember } from "./responses-member";

/** OpenAI's chat completions as the canonical chat (for clients of the other formats). */
export async function openAIChat(request: ChatRequest, context: AttemptContext): Promise<StreamEventBatches> {
  const response = await postOpenAI("/chat/completions", chatBody(request, context), context, request.stream);
  if (request.stream) return parseOpenAIStream(decodeSseBatches(response.body));
  const json = await response.body.json();
  return (async function* () {
    yield [...openAIResponseEvents(json)];
  })();
}

/**
 * The chat completions body for `request`: encoded, with the client's own bytes for its
 * long strings, when the request offers them (carried-strings.ts); else an object.
 */
function chatBody(request: ChatRequest, context: AttemptContext): Record<string, unknown> | Buffer {
  const carried = carriedChat(request);
  if (carried) {
    const warnings = [...carried.warnings];
    const encoded = carried.restore(encodeJson(withCacheKey(toOpenAIChatBody(carried.chat, context.upstreamModel, warnings), context)));
    if (encoded) {
      for (const warning of warnings) if (!context.warnings.includes(warning)) context.warnings.push(warning);
      return encoded;
    }
  }
  return withCacheKey(toOpenAIChatBody(request, context.upstreamModel, context.warnings), context);
}

/** The client's format has no cache hint for OpenAI: its session keeps the prompt cache warm. */
function withCacheKey(body: Record<string, unknown>, context: AttemptContext): Record<string, unknown> {
  if (context.promptCacheKey) body.prompt_cache_key = context.promptCacheKey;
  return body;
}

const relayed = (relay: Relay) => ({ attempt: relay });

/**
 * The operations of OpenAI's wire format, for any transport that reaches it (OpenAI,
 * OpenAI-compatible servers, Azure OpenAI): OpenAI clients are relayed as bytes.
 */
export const openAIOperations: ProviderOperations = {
  chat: chatMember(openAIChat, { openai: openAIRelay(chatCompletionsSpec) }),
  responses: openAIResponsesMember(openAIChat),
  compact: openAICompactionMember(openAIChat),
  completions: relayed(openAIRelay(completionsSpec)),
  embeddings: relayed(openAIRelay(embeddingsSpec)),
  images: relayed(openAIRelay(imageGenerationsSpec)),
  "image-edits": relayed(openAIMultipartRelay(imageEditsSpec)),
  "audio-speech": relayed(openAIRelay(speechSpec)),
  "audio-transcription": relayed(openAIMultipartRelay(transcriptionsSpec)),
  rerank: relayed(openAIRelay(rerankSpec)),
  "count-tokens": openAITokenCountMember,
  realtime: openAIRealtimeMember,
};

/** Any OpenAI-compatible upstream: OpenAI, OpenRouter, vLLM, Ollama, llama.cpp server... */
export const openAIProvider: Provider = {
  defaultBaseUrl: "https://api.openai.com/v1",
  versionSegment: "/v1",
  requiresApiKey: false, // local servers (Ollama, llama.cpp) often take none
  ownedBy: "openai-compatible",
  transport: (channel) => keyHeaderTransport(channel, "authorization", bearer),
  listModels: listOpenAIModels,
  operations: openAIOperations,
  probe: openAIChat,
};
