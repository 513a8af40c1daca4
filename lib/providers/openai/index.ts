import type { ChatRequest } from "@/lib/canonical/request";
import type { StreamEventBatches } from "@/lib/canonical/stream-event";
import type { CallContext, Provider } from "@/lib/providers/provider";
import { decodeSseBatches } from "@/lib/sse/decode-sse";
import { postOpenAI } from "./call-upstream";
import { toOpenAIChatBody } from "./convert-request";
import { openAIResponseEvents, parseOpenAIStream } from "./parse-stream";
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
} from "./relay-openai";
import { relayResponses } from "./relay-responses";
import { listOpenAIModels } from "./list-models";

async function chat(request: ChatRequest, context: CallContext): Promise<StreamEventBatches> {
  const body = toOpenAIChatBody(request, context.upstreamModel, context.warnings);
  const response = await postOpenAI("/chat/completions", body, context);
  if (request.stream) return parseOpenAIStream(decodeSseBatches(response.body));
  const json = await response.body.json();
  return (async function* () {
    yield [...openAIResponseEvents(json)];
  })();
}

/** Any OpenAI-compatible upstream: OpenAI, OpenRouter, vLLM, Ollama, llama.cpp server... */
export const openAIProvider: Provider = {
  defaultBaseUrl: "https://api.openai.com/v1",
  versionSegment: "/v1",
  listModels: listOpenAIModels,
  requiresApiKey: false, // local servers (Ollama, llama.cpp) often take none
  ownedBy: "openai-compatible",
  chat,
  realtimePath: "/realtime",
  relays: {
    "openai:chat": openAIRelay(chatCompletionsSpec),
    "openai:completions": openAIRelay(completionsSpec),
    "openai:embeddings": openAIRelay(embeddingsSpec),
    "openai:images": openAIRelay(imageGenerationsSpec),
    "openai:image-edits": openAIMultipartRelay(imageEditsSpec),
    "openai:audio-speech": openAIRelay(speechSpec),
    "openai:audio-transcription": openAIMultipartRelay(transcriptionsSpec),
    "openai:rerank": openAIRelay(rerankSpec),
    "openai:responses": relayResponses,
  },
};
