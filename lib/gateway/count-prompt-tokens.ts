import { messageText, type ChatRequest } from "@/lib/canonical/request";
import { jsonResponse, type ApiResponse } from "@/lib/http/api-types";
import { providers } from "@/lib/providers/registry";
import { countTokens } from "@/lib/usage/count-tokens";
import { runCall } from "./call-pipeline";
import type { GatewayContext } from "./with-api-key";

/**
 * Prompt tokens for a request, through the same pipeline as every call: exact from the
 * upstream when its API counts tokens, otherwise a tokenizer estimate. Counting spends
 * no quota, and the log row records no usage for it.
 */
export function countPromptTokens(context: GatewayContext, chat: ChatRequest, render: (count: number) => unknown): Promise<ApiResponse> {
  context.log.meter.recordUsage({ promptTokens: 0, completionTokens: 0 });
  return runCall(context, {
    operation: "count-tokens",
    model: chat.model,
    stream: false,
    estimate: { inputTokens: 0, outputTokens: 0 },
    // Any channel serving the model can answer: exactly, or with the tokenizer.
    supports: () => true,
    renderStreamError: context.format.renderStreamError,
    async attempt(channel, call) {
      const provider = providers[channel.type];
      if (provider.countTokens) return jsonResponse(200, render(await provider.countTokens(chat, call)));
      const tools = (chat.tools ?? []).map((tool) => JSON.stringify(tool)).join("\n");
      return jsonResponse(200, render(await countTokens([chat.system ?? "", ...chat.messages.map(messageText), tools].join("\n"))));
    },
  });
}
