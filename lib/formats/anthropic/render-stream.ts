import { toGatewayError } from "@/lib/canonical/gateway-error";
import type { FinishReason } from "@/lib/canonical/finish-reason";
import { renderPerBatch, type StreamEvent, type StreamEventBatches } from "@/lib/canonical/stream-event";
import type { Usage } from "@/lib/canonical/usage";
import { encodeSse } from "@/lib/sse/encode-sse";
import { anthropicMessageId, anthropicToolId } from "./ids";
import { toAnthropicStopReason } from "./map-stop-reason";
import { renderAnthropicStreamError } from "./render-error";
import { renderAnthropicUsage } from "./render-usage";

/** The most frequent event, written without building objects for it (the same bytes `send` gives). */
const textDelta = (index: number, text: string) =>
  `event: content_block_delta\ndata: {"type":"content_block_delta","index":${index},"delta":{"type":"text_delta","text":${JSON.stringify(text)}}}\n\n`;

type OpenBlock = { kind: "text" | "thinking" | "tool"; index: number; toolIndex?: number; signature?: string };

/**
 * Canonical events -> Anthropic SSE. Every event carries its `event:` line (the SDK
 * dispatches on it); block indices run 0,1,2… in start order; each started block is
 * stopped; the stop reason and usage wait for the end of the stream.
 */
export function renderMessageStream(events: StreamEventBatches, options: { model: string }): AsyncIterable<string> {
  const send = (type: string, data: Record<string, unknown>) => encodeSse(JSON.stringify({ type, ...data }), type);
  let started = false;
  let nextIndex = 0;
  let open: OpenBlock | undefined;
  const toolBlocks = new Map<number, number>();
  let finish: FinishReason = "stop";
  let stopSequence: string | null = null;
  let usage: Usage | undefined;

  function* start(id = "", model = options.model) {
    if (started) return;
    started = true;
    yield send("message_start", {
      message: {
        id: anthropicMessageId(id),
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 },
      },
    });
  }
  function* close() {
    if (!open) return;
    if (open.kind === "thinking" && open.signature) {
      yield send("content_block_delta", { index: open.index, delta: { type: "signature_delta", signature: open.signature } });
    }
    yield send("content_block_stop", { index: open.index });
    open = undefined;
  }
  function* openBlock(kind: "text" | "thinking") {
    if (open?.kind === kind) return;
    yield* close();
    open = { kind, index: nextIndex++ };
    const block = kind === "text" ? { type: "text", text: "" } : { type: "thinking", thinking: "", signature: "" };
    yield send("content_block_start", { index: open.index, content_block: block });
  }

  function* onEvent(event: StreamEvent): Generator<string> {
    switch (event.type) {
      case "message-start":
        yield* start(event.id, event.model || options.model);
        break;
      case "text-delta":
        yield* start();
        if (!event.text) break;
        yield* openBlock("text");
        yield textDelta(open!.index, event.text);
        break;
      case "reasoning-delta":
        yield* start();
        if (!event.text && !event.signature) break;
        yield* openBlock("thinking");
        if (event.signature) open!.signature = event.signature;
        if (event.text) yield send("content_block_delta", { index: open!.index, delta: { type: "thinking_delta", thinking: event.text } });
        break;
      case "tool-call-start":
        yield* start();
        yield* close();
        open = { kind: "tool", index: nextIndex++, toolIndex: event.index };
        toolBlocks.set(event.index, open.index);
        yield send("content_block_start", {
          index: open.index,
          content_block: { type: "tool_use", id: anthropicToolId(event.id), name: event.name, input: {} },
        });
        break;
      case "tool-call-delta": {
        const index = toolBlocks.get(event.index);
        if (index === undefined || !event.argumentsDelta) break;
        yield send("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: event.argumentsDelta } });
        break;
      }
      case "usage":
        usage = event.usage;
        break;
      case "finish":
        finish = event.reason;
        stopSequence = event.stopSequence ?? null;
        break;
      case "error":
        throw event.error;
    }
  }

  return renderPerBatch(events, onEvent, {
    failed: (error) => [...start(), renderAnthropicStreamError(toGatewayError(error))].join(""),
    ending: () =>
      [
        ...start(),
        ...close(),
        send("message_delta", {
          delta: { stop_reason: toAnthropicStopReason[finish], stop_sequence: stopSequence },
          usage: renderAnthropicUsage(usage),
        }),
        send("message_stop", {}),
      ].join(""),
  });
}
