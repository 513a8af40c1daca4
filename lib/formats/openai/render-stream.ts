import { toGatewayError } from "@/lib/canonical/gateway-error";
import { renderPerBatch, type StreamEvent, type StreamEventBatches } from "@/lib/canonical/stream-event";
import type { Usage } from "@/lib/canonical/usage";
import { encodeSse } from "@/lib/sse/encode-sse";
import { toOpenAIFinishReason } from "./map-finish-reason";
import { renderOpenAIStreamError } from "./render-error";
import { renderOpenAIUsage } from "./render-usage";

/** Renders canonical events as Chat Completions chunks, ending with `[DONE]`. */
export function renderChatCompletionStream(events: StreamEventBatches, options: { includeUsage: boolean; fallbackModel: string }): AsyncIterable<string> {
  let id = `chatcmpl-${crypto.randomUUID().replaceAll("-", "")}`;
  let model = options.fallbackModel;
  let created = Math.floor(Date.now() / 1000);
  let usage: Usage | undefined;
  let started = false;
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => {
    const value: Record<string, unknown> = {
      id,
      object: "chat.completion.chunk",
      created,
      model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    };
    if (options.includeUsage) value.usage = null;
    return encodeSse(JSON.stringify(value));
  };
  const start = function* () {
    if (started) return;
    started = true;
    yield chunk({ role: "assistant", content: "" });
  };
  function* onEvent(event: StreamEvent): Generator<string> {
    switch (event.type) {
      case "message-start":
        id = event.id || id;
        model = event.model || model;
        created = event.created;
        yield* start();
        break;
      case "text-delta":
        yield* start();
        yield chunk({ content: event.text });
        break;
      case "reasoning-delta":
        yield* start();
        if (event.text) yield chunk({ reasoning_content: event.text });
        break;
      case "tool-call-start":
        yield* start();
        yield chunk({
          tool_calls: [{ index: event.index, id: event.id, type: "function", function: { name: event.name, arguments: "" } }],
        });
        break;
      case "tool-call-delta":
        yield chunk({ tool_calls: [{ index: event.index, function: { arguments: event.argumentsDelta } }] });
        break;
      case "usage":
        usage = event.usage;
        break;
      case "finish":
        yield* start();
        yield chunk({}, toOpenAIFinishReason[event.reason]);
        break;
      case "error":
        throw event.error;
    }
  }

  return renderPerBatch(events, onEvent, {
    failed: (error) => renderOpenAIStreamError(toGatewayError(error)),
    ending: () => {
      const last =
        options.includeUsage && usage ? encodeSse(JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [], usage: renderOpenAIUsage(usage) })) : "";
      return last + encodeSse("[DONE]");
    },
  });
}
