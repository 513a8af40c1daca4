import type { ChatRequest } from "@/lib/canonical/request";
import type { StreamEventBatches } from "@/lib/canonical/stream-event";
import { env } from "@/lib/env";
import type { CallContext, Provider } from "@/lib/providers/provider";
import { decodeSseBatches } from "@/lib/sse/decode-sse";
import { postAnthropic } from "./call-upstream";
import { toAnthropicBody } from "./convert-request";
import { anthropicResponseEvents, parseAnthropicStream } from "./parse-stream";
import { relayMessages } from "./relay-messages";
import { listAnthropicModels } from "./list-models";

async function chat(request: ChatRequest, context: CallContext): Promise<StreamEventBatches> {
  const body = toAnthropicBody(request, context.upstreamModel, env.ANTHROPIC_DEFAULT_MAX_TOKENS, context.warnings);
  const response = await postAnthropic("/messages", body, context);
  if (request.stream) return parseAnthropicStream(decodeSseBatches(response.body));
  const json = await response.body.json();
  return (async function* () {
    yield [...anthropicResponseEvents(json)];
  })();
}

async function countTokens(request: ChatRequest, context: CallContext): Promise<number> {
  const { max_tokens: _max, stream: _stream, ...body } = toAnthropicBody(request, context.upstreamModel, 1, []);
  const response = await postAnthropic("/messages/count_tokens", body, context);
  const json = (await response.body.json()) as { input_tokens?: number };
  return json.input_tokens ?? 0;
}

/** Anthropic's Messages API (x-api-key auth). */
export const anthropicProvider: Provider = {
  defaultBaseUrl: "https://api.anthropic.com/v1",
  versionSegment: "/v1",
  listModels: listAnthropicModels,
  requiresApiKey: true,
  ownedBy: "anthropic",
  chat,
  countTokens,
  relays: { "anthropic:chat": relayMessages },
};
