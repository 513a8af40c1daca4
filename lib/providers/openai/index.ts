import { carriedBody } from "@/lib/canonical/carried-strings";
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
  const body = carriedBody(request, context.warnings, (chat, warnings) => {
    const body = toOpenAIChatBody(chat, context.upstreamModel, warnings);
    // The client's format has no cache hint for OpenAI: its session keeps the prompt cache warm.
    if (context.promptCacheKey) body.prompt_cache_key = context.promptCacheKey;
    return body;
  });
  const response = await postOpenAI("/chat/completions", body, context, request.stream);
  if (request.stream) return parseOpenAIStream(decodeSseBatches(response.body));
  const json = await response.body.json();
  return (async function* () {
    yield [...openAIResponseEvents(json)];
  })();
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
