import type { ChatResponse } from "@/lib/canonical/collect-response";
import { toolArgumentsObject } from "@/lib/canonical/json";
import { toAnthropicStopReason } from "./map-stop-reason";
import { renderAnthropicUsage } from "./render-usage";
import { anthropicMessageId, anthropicToolId } from "./ids";

export function renderMessage(response: ChatResponse, requestedModel: string) {
  const content: Record<string, unknown>[] = [];
  if (response.reasoning) content.push({ type: "thinking", thinking: response.reasoning, signature: response.reasoningSignature ?? "" });
  if (response.text) content.push({ type: "text", text: response.text });
  for (const call of response.toolCalls) {
    content.push({ type: "tool_use", id: anthropicToolId(call.id), name: call.name, input: toolArgumentsObject(call.arguments) });
  }
  return {
    id: anthropicMessageId(response.id),
    type: "message",
    role: "assistant",
    model: response.model || requestedModel,
    content,
    stop_reason: toAnthropicStopReason[response.finishReason],
    stop_sequence: response.stopSequence ?? null,
    usage: renderAnthropicUsage(response.usage),
  };
}
