import type { ChatResponse } from "@/lib/canonical/collect-response";
import type { GatewayError } from "@/lib/canonical/gateway-error";
import { messageText, type ChatRequest } from "@/lib/canonical/request";
import type { StreamEventBatches } from "@/lib/canonical/stream-event";
import type { ApiResponse } from "@/lib/canonical/api-types";
import { withResponseCache } from "@/lib/cache/response-cache";
import { env } from "@/lib/env";
import type { ChatCall } from "@/lib/providers/provider";
import { estimateTokensOfLength, runCall } from "./call-pipeline";
import type { GatewayContext } from "./with-api-key";

export interface ChatPlan {
  chat: ChatRequest;
  /** The raw client body, for upstreams that speak the client's own format. */
  relay?: ChatCall["relay"];
  renderResponse(response: ChatResponse): unknown;
  renderStream(events: StreamEventBatches): AsyncIterable<string>;
  /** The client's session (requestSession), for session affinity. */
  session?: string;
  /** The in-stream error event once a stream has started (the format's own by default). */
  renderStreamError?(error: GatewayError): string;
  /** The bytes of the conversation's JSON when it is not parsed yet (deferred-chat.ts): the estimate is made from them. */
  conversationBytes?: number;
}

/** Chat in any client format; each channel's provider decides between relaying and translating. */
export function callChat(context: GatewayContext, plan: ChatPlan): Promise<ApiResponse> {
  return withResponseCache(context, plan, (chosen) => runChat(context, chosen));
}

function runChat(context: GatewayContext, plan: ChatPlan): Promise<ApiResponse> {
  const { chat } = plan;
  const { call, format } = context;
  const promptText = () => [chat.system ?? "", ...chat.messages.map(messageText)].join("\n");
  call.promptText = promptText;
  // The length alone, without joining a conversation into one string.
  const promptLength = plan.conversationBytes ?? chat.messages.reduce((sum, message) => sum + messageText(message).length + 1, chat.system?.length ?? 0);
  return runCall(context, {
    operation: "chat",
    model: chat.model,
    stream: chat.stream,
    session: plan.session,
    estimate: { inputTokens: estimateTokensOfLength(promptLength), outputTokens: chat.maxTokens ?? env.QUOTA_DEFAULT_OUTPUT_TOKENS },
    renderStreamError: plan.renderStreamError ?? format.renderStreamError,
    call: {
      model: chat.model,
      format: format.name,
      chat,
      relay: plan.relay,
      render: { renderResponse: plan.renderResponse, renderStream: plan.renderStream },
    },
  });
}
