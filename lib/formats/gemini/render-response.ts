import type { ChatResponse } from "@/lib/canonical/collect-response";
import { toolArgumentsObject } from "@/lib/canonical/json";
import { toGeminiFinishReason } from "./map-finish-reason";
import { renderGeminiUsage } from "./render-usage";

export function renderGenerateContentResponse(response: ChatResponse, requestedModel: string) {
  const parts: Record<string, unknown>[] = [];
  if (response.reasoning) parts.push({ text: response.reasoning, thought: true });
  if (response.text) parts.push({ text: response.text });
  for (const call of response.toolCalls) parts.push({ functionCall: { id: call.id, name: call.name, args: toolArgumentsObject(call.arguments) } });
  return {
    candidates: [{ content: { role: "model", parts }, finishReason: toGeminiFinishReason[response.finishReason], index: 0 }],
    usageMetadata: renderGeminiUsage(response.usage),
    modelVersion: response.model || requestedModel,
    responseId: response.id,
  };
}
