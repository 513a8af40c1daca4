import type { ChatRequest } from "@/lib/canonical/request";
import type { ApiResponse } from "@/lib/canonical/api-types";
import type { CountTokensCall } from "@/lib/providers/provider";
import { runCall } from "./call-pipeline";
import type { GatewayContext } from "./with-api-key";

/**
 * Prompt tokens for a request, through the same core as every call: each provider's
 * count-tokens member answers exactly or with the tokenizer. Counting spends no quota,
 * and the log row records no usage for it.
 */
export function countPromptTokens(context: GatewayContext, chat: ChatRequest, render: (count: number) => unknown, responses?: CountTokensCall["responses"]): Promise<ApiResponse> {
  context.call.meter.recordUsage({ promptTokens: 0, completionTokens: 0 });
  return runCall(context, {
    operation: "count-tokens",
    model: chat.model,
    stream: false,
    estimate: { inputTokens: 0, outputTokens: 0 },
    renderStreamError: context.format.renderStreamError,
    call: { model: chat.model, chat, render, responses },
  });
}
