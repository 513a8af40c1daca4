import { carriedBody } from "@/lib/canonical/carried-strings";
import type { ChatRequest } from "@/lib/canonical/request";
import type { StreamEventBatches } from "@/lib/canonical/stream-event";
import { env } from "@/lib/env";
import { chatMember, exactTokenCountMember, translatedCompactionMember, translatedResponsesMember } from "@/lib/providers/members/chat-members";
import { hostedKinds } from "@/lib/providers/members/hosted-tools";
import type { AttemptContext, Provider, ProviderOperations } from "@/lib/providers/provider";
import { keyHeaderTransport } from "@/lib/providers/transport";
import { decodeSseBatches } from "@/lib/sse/decode-sse";
import { postAnthropic } from "./call-upstream";
import { toAnthropicBody } from "./convert-request";
import { listAnthropicModels } from "./list-models";
import { anthropicResponseEvents, parseAnthropicStream } from "./parse-stream";
import { relayMessages } from "./relay-messages";

/** Anthropic's Messages API as the canonical chat (for clients of the other formats). */
export async function anthropicChat(request: ChatRequest, context: AttemptContext): Promise<StreamEventBatches> {
  const body = carriedBody(request, context.warnings, (chat, warnings) => toAnthropicBody(chat, context.upstreamModel, env.ANTHROPIC_DEFAULT_MAX_TOKENS, warnings));
  const response = await postAnthropic("/messages", body, context, { stream: request.stream });
  if (request.stream) return parseAnthropicStream(decodeSseBatches(response.body));
  const json = await response.body.json();
  return (async function* () {
    yield [...anthropicResponseEvents(json)];
  })();
}

async function countTokens(request: ChatRequest, context: AttemptContext): Promise<number> {
  const { max_tokens: _max, stream: _stream, ...body } = toAnthropicBody(request, context.upstreamModel, 1, []);
  const response = await postAnthropic("/messages/count_tokens", body, context);
  const json = (await response.body.json()) as { input_tokens?: number };
  return json.input_tokens ?? 0;
}

/** The operations of Anthropic's wire format, for any transport that reaches it. */
export const anthropicOperations: ProviderOperations = {
  chat: chatMember(anthropicChat, { anthropic: relayMessages }),
  responses: translatedResponsesMember(anthropicChat, hostedKinds("web-search")),
  compact: translatedCompactionMember(anthropicChat),
  "count-tokens": exactTokenCountMember(countTokens),
};

/** Anthropic's Messages API (x-api-key auth). */
export const anthropicProvider: Provider = {
  defaultBaseUrl: "https://api.anthropic.com/v1",
  versionSegment: "/v1",
  requiresApiKey: true,
  ownedBy: "anthropic",
  transport: (channel) => keyHeaderTransport(channel, "x-api-key"),
  listModels: listAnthropicModels,
  operations: anthropicOperations,
  probe: anthropicChat,
};
