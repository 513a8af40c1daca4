import { toGatewayError } from "@/lib/canonical/gateway-error";
import type { FinishReason } from "@/lib/canonical/finish-reason";
import { renderPerBatch, type StreamEvent, type StreamEventBatches } from "@/lib/canonical/stream-event";
import type { Usage } from "@/lib/canonical/usage";
import { toolArgumentsObject } from "@/lib/canonical/json";
import { encodeSse } from "@/lib/sse/encode-sse";
import { toGeminiFinishReason } from "./map-finish-reason";
import { renderGeminiStreamError } from "./render-error";
import { renderGeminiUsage } from "./render-usage";

/**
 * Canonical events -> Gemini stream chunks (each a GenerateContentResponse holding only
 * the new parts). Tool calls are buffered until complete: Gemini clients never see
 * partial arguments. `sse` frames chunks as SSE; otherwise the body is a JSON array.
 */
export function renderGenerateContentStream(events: StreamEventBatches, options: { model: string; sse: boolean }): AsyncIterable<string> {
  let model = options.model;
  let responseId = "";
  let finish: FinishReason = "stop";
  let usage: Usage | undefined;
  const pendingCalls = new Map<number, { id: string; name: string; arguments: string }>();
  let first = true;

  const frame = (value: unknown) => {
    const json = JSON.stringify(value);
    if (options.sse) return encodeSse(json);
    const prefix = first ? "[" : ",\r\n";
    first = false;
    return prefix + json;
  };
  const chunk = (parts: Record<string, unknown>[]) => frame({ candidates: [{ content: { role: "model", parts }, index: 0 }], modelVersion: model, responseId });
  const flushCalls = () => {
    if (pendingCalls.size === 0) return undefined;
    const parts = [...pendingCalls.values()].map((call) => ({
      functionCall: { id: call.id, name: call.name, args: toolArgumentsObject(call.arguments) },
    }));
    pendingCalls.clear();
    return chunk(parts);
  };

  function* onEvent(event: StreamEvent): Generator<string> {
    switch (event.type) {
      case "message-start":
        model = event.model || model;
        responseId = event.id;
        break;
      case "text-delta":
      case "reasoning-delta": {
        if (!event.text) break;
        const calls = flushCalls();
        if (calls) yield calls;
        yield chunk([event.type === "text-delta" ? { text: event.text } : { text: event.text, thought: true }]);
        break;
      }
      case "tool-call-start":
        pendingCalls.set(event.index, { id: event.id, name: event.name, arguments: "" });
        break;
      case "tool-call-delta": {
        const call = pendingCalls.get(event.index);
        if (call) call.arguments += event.argumentsDelta;
        break;
      }
      case "usage":
        usage = event.usage;
        break;
      case "finish":
        finish = event.reason;
        break;
      case "error":
        throw event.error;
    }
  }

  const failed = (error: unknown) => renderGeminiStreamError(toGatewayError(error), { sse: options.sse, arrayOpened: !first });
  return renderPerBatch(events, onEvent, {
    failed,
    ending: () => {
      let last: string;
      try {
        last =
          (flushCalls() ?? "") +
          frame({
            candidates: [{ content: { role: "model", parts: [] }, finishReason: toGeminiFinishReason[finish], index: 0 }],
            usageMetadata: renderGeminiUsage(usage),
            modelVersion: model,
            responseId,
          });
      } catch (error) {
        return failed(error);
      }
      return options.sse ? last : `${last}${first ? "[]" : "]"}`;
    },
  });
}
