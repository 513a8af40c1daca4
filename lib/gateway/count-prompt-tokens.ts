import { messageText, type ChatRequest } from "@/lib/canonical/request";
import { checkModelAllowed } from "@/lib/limits/check-quota";
import { GatewayError } from "@/lib/canonical/gateway-error";
import { providers } from "@/lib/providers/registry";
import { countTokens } from "@/lib/usage/count-tokens";
import { callContextFor } from "./call-chat";
import type { GatewayContext } from "./with-api-key";

/**
 * Prompt tokens for a request: exact from the upstream when its API counts tokens,
 * otherwise a tokenizer estimate (counting costs no quota either way).
 */
export async function countPromptTokens(context: GatewayContext, chat: ChatRequest): Promise<number> {
  const { log, runtime, token } = context;
  log.model = chat.model;
  checkModelAllowed(token, chat.model);
  const [channel] = runtime.channels.candidates(chat.model);
  if (!channel) {
    throw new GatewayError("not_found", `The model '${chat.model}' does not exist or you do not have access to it.`, {
      code: "model_not_found",
      param: "model",
    });
  }
  // Counting is free: the log row records no usage for it.
  log.meter.recordUsage({ promptTokens: 0, completionTokens: 0 });
  const provider = providers[channel.type];
  if (provider.countTokens) return provider.countTokens(chat, callContextFor(context, channel, chat.model));
  const tools = (chat.tools ?? []).map((tool) => JSON.stringify(tool)).join("\n");
  return countTokens([chat.system ?? "", ...chat.messages.map(messageText), tools].join("\n"));
}
