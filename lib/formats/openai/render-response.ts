import type { ChatResponse } from "@/lib/canonical/collect-response";
import { toOpenAIFinishReason } from "./map-finish-reason";
import { renderOpenAIUsage } from "./render-usage";

export function renderChatCompletion(response: ChatResponse) {
  const message: Record<string, unknown> = {
    role: "assistant",
    content: response.text === "" && response.toolCalls.length > 0 ? null : response.text,
    refusal: null,
    annotations: [],
  };
  if (response.reasoning) message.reasoning_content = response.reasoning;
  if (response.toolCalls.length > 0) {
    message.tool_calls = response.toolCalls.map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: call.arguments },
    }));
  }
  return {
    id: response.id,
    object: "chat.completion",
    created: response.created,
    model: response.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: toOpenAIFinishReason[response.finishReason] }],
    usage: response.usage ? renderOpenAIUsage(response.usage) : undefined,
  };
}
