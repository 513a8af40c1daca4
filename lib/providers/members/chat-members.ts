import { messageText } from "@/lib/canonical/request";
import { jsonResponse, type ApiResponse } from "@/lib/canonical/api-types";
import type { ChatRequest } from "@/lib/canonical/request";
import type { AttemptContext, AttemptHooks, ChatCall, ClientFormatName, OperationMember, RelayedResponse, ResponsesCall } from "@/lib/providers/provider";
import { countTokens } from "@/lib/usage/count-tokens";
import { keepHostedTools, NO_HOSTED_TOOLS, withDroppedToolsHeader, type HostedToolSupport } from "./hosted-tools";
import { translatedChat, type CanonicalChat } from "./translated-chat";

// The members most providers assemble from their canonical chat: chat itself (relayed
// as bytes to an upstream of the client's own format, translated otherwise), Responses
// translated through chat, and token counting.

type SameFormatRelay = (request: NonNullable<ChatCall["relay"]>, context: AttemptContext) => Promise<RelayedResponse>;

/** Chat from any client format: the same-format relay where the provider has one, else the canonical path. */
export function chatMember(chat: CanonicalChat, relays: Partial<Record<ClientFormatName, SameFormatRelay>> = {}): OperationMember<"chat"> {
  return {
    attempt(call, context, hooks) {
      const relay = call.relay && relays[call.format];
      if (relay) return relay(call.relay!, context);
      return translatedChat(chat, call.chat, context, hooks, call.render);
    },
  };
}

/** /v1/responses through the canonical chat; a continuation of a relayed answer cannot be served here. */
export function translatedResponsesMember(chat: CanonicalChat, hostedTools: HostedToolSupport = NO_HOSTED_TOOLS): OperationMember<"responses"> {
  return {
    serves: (call) => !call.continuesRelayed,
    attempt: (call, context, hooks) => translatedResponses(chat, hostedTools, call, context, hooks),
  };
}

/** The gateway's own compaction through the canonical chat (the call's translation asks for the summary). */
export function translatedCompactionMember(chat: CanonicalChat): OperationMember<"compact"> {
  const { serves, attempt } = translatedResponsesMember(chat);
  return { serves, attempt };
}

/** One Responses call through the canonical chat: hosted tools the upstream lacks dropped, and said so. */
export async function translatedResponses(
  chat: CanonicalChat,
  hostedTools: HostedToolSupport,
  call: ResponsesCall,
  context: AttemptContext,
  hooks: AttemptHooks,
): Promise<ApiResponse> {
  const translated = call.translate(call.model);
  const { request, dropped } = keepHostedTools(translated.chat, hostedTools, context.warnings);
  return withDroppedToolsHeader(await translatedChat(chat, request, context, hooks, translated.render), dropped);
}

/** The exact count where the upstream's API offers one. */
export function exactTokenCountMember(count: (request: ChatRequest, context: AttemptContext) => Promise<number>): OperationMember<"count-tokens"> {
  return { attempt: async (call, context) => jsonResponse(200, call.render(await count(call.chat, context))) };
}

/** A tokenizer estimate, for upstreams whose API counts no tokens. */
export const estimatedTokenCountMember: OperationMember<"count-tokens"> = {
  async attempt(call) {
    const { chat } = call;
    const tools = (chat.tools ?? []).map((tool) => JSON.stringify(tool)).join("\n");
    return jsonResponse(200, call.render(await countTokens([chat.system ?? "", ...chat.messages.map(messageText), tools].join("\n"))));
  },
};
