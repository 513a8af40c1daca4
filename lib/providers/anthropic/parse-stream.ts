import { GatewayError } from "@/lib/canonical/gateway-error";
import { eventsPerInput, type StreamEvent, type StreamEventBatches } from "@/lib/canonical/stream-event";
import type { Usage } from "@/lib/canonical/usage";
import { fromAnthropicStopReason } from "@/lib/formats/anthropic/map-stop-reason";
import { parseAnthropicUsage } from "@/lib/formats/anthropic/render-usage";
import { safeJson } from "@/lib/canonical/json";
import type { SseMessage } from "@/lib/sse/decode-sse";
import { StreamEnd } from "@/lib/sse/stream-ends";
import { malformedStreamError } from "@/lib/sse/stream-errors";
import { messageResponseSchema, streamEventSchema } from "./anthropic-api";
import { anthropicStreamEnds } from "./stream-ends";
import { citationEvents, searchQuery, webSearchEvent } from "./web-search-results";

/**
 * Anthropic SSE -> canonical events. Tool calls get their own dense index; the server's
 * own tool (web search) is no call for the client: its query and results become one
 * web-search event, and a text block's citations are reported when the block ends.
 */
export function parseAnthropicStream(batches: AsyncIterable<SseMessage[]>): StreamEventBatches {
  const toolIndexes = new Map<number, number>();
  // Server tool uses by block index (their streamed input), and the queries by tool use id.
  const serverUses = new Map<number, { id: string; input: string }>();
  const queries = new Map<string, string>();
  // Text blocks with citations: where their text started, by block index.
  const citing = new Map<number, { start: number; citations: unknown[] }>();
  let textLength = 0;
  let startUsage: Usage | undefined;
  const end = new StreamEnd(anthropicStreamEnds);
  // Read to the close after message_stop rather than torn down (see the OpenAI parser).
  let stopped = false;
  function* step(batch: SseMessage[]): Generator<StreamEvent> {
    for (const message of batch) {
      if (stopped) continue;
      const json = safeJson(message.data);
      if (json === undefined) throw malformedStreamError();
      if (json !== null && typeof json === "object" && !Array.isArray(json)) end.see(json as Record<string, unknown>);
      const parsed = streamEventSchema.safeParse(json);
      if (!parsed.success) continue;
      const event = parsed.data;
      switch (event.type) {
        case "message_start":
          startUsage = parseAnthropicUsage(event.message.usage);
          yield { type: "message-start", id: event.message.id, model: event.message.model ?? "", created: Math.floor(Date.now() / 1000) };
          break;
        case "content_block_start": {
          const block = event.content_block;
          if (block.type === "server_tool_use") {
            const input = block.input && typeof block.input === "object" && Object.keys(block.input).length > 0 ? JSON.stringify(block.input) : "";
            serverUses.set(event.index, { id: block.id ?? "", input });
          } else if (block.type === "web_search_tool_result") {
            yield webSearchEvent(block, queries);
          } else if (block.type === "tool_use") {
            const index = toolIndexes.size;
            toolIndexes.set(event.index, index);
            yield { type: "tool-call-start", index, id: block.id ?? `toolu_${index}`, name: block.name ?? "" };
            const input = block.input;
            if (input && typeof input === "object" && Object.keys(input).length > 0) {
              yield { type: "tool-call-delta", index, argumentsDelta: JSON.stringify(input) };
            }
          } else if (block.type === "text") {
            if (block.citations) citing.set(event.index, { start: textLength, citations: [...block.citations] });
            if (block.text) {
              textLength += block.text.length;
              yield { type: "text-delta", text: block.text };
            }
          } else if (block.type === "thinking" && block.thinking) {
            yield { type: "reasoning-delta", text: block.thinking };
          }
          break;
        }
        case "content_block_delta": {
          const delta = event.delta;
          if (delta.type === "text_delta" && delta.text) {
            textLength += delta.text.length;
            yield { type: "text-delta", text: delta.text };
          } else if (delta.type === "citations_delta" && delta.citation) {
            const block = citing.get(event.index) ?? { start: textLength, citations: [] };
            block.citations.push(delta.citation);
            citing.set(event.index, block);
          } else if (delta.type === "thinking_delta" && delta.thinking) yield { type: "reasoning-delta", text: delta.thinking };
          else if (delta.type === "signature_delta" && delta.signature) yield { type: "reasoning-delta", text: "", signature: delta.signature };
          else if (delta.type === "input_json_delta" && delta.partial_json) {
            const serverUse = serverUses.get(event.index);
            if (serverUse) serverUse.input += delta.partial_json;
            const index = toolIndexes.get(event.index);
            if (index !== undefined) yield { type: "tool-call-delta", index, argumentsDelta: delta.partial_json };
          }
          break;
        }
        case "content_block_stop": {
          const serverUse = serverUses.get(event.index);
          const query = serverUse && searchQuery(serverUse.input);
          if (serverUse && query) queries.set(serverUse.id, query);
          const block = citing.get(event.index);
          if (block) yield* citationEvents(block.citations, block.start, textLength);
          break;
        }
        case "message_delta": {
          yield {
            type: "finish",
            reason: fromAnthropicStopReason[event.delta.stop_reason ?? "end_turn"] ?? "other",
            stopSequence: event.delta.stop_sequence ?? undefined,
          };
          // Counts here are cumulative; input and cache counts may be missing (back-fill).
          const usage = parseAnthropicUsage(event.usage, startUsage);
          if (usage) yield { type: "usage", usage };
          break;
        }
        case "error":
          yield {
            type: "error",
            error: new GatewayError(event.error.type === "overloaded_error" ? "overloaded" : "upstream_error", event.error.message ?? "The upstream reported an error.", {
              status: event.error.type === "overloaded_error" ? 529 : 500,
              upstreamType: event.error.type,
              upstreamFormat: "anthropic",
            }),
          };
          return;
        case "message_stop":
          stopped = true;
          break;
      }
    }
  }
  return eventsPerInput(batches, step, {
    stopped: () => end.failed,
    ending: () => {
      end.close();
      return undefined;
    },
  });
}

/** A non-streaming Anthropic message as the same canonical event sequence. */
export function* anthropicResponseEvents(json: unknown): Generator<StreamEvent> {
  const parsed = messageResponseSchema.safeParse(json);
  if (!parsed.success) {
    throw new GatewayError("bad_gateway", "The upstream returned a response the gateway could not read.", { code: "invalid_upstream_response" });
  }
  const message = parsed.data;
  yield { type: "message-start", id: message.id, model: message.model ?? "", created: Math.floor(Date.now() / 1000) };
  let toolIndex = 0;
  let textLength = 0;
  const queries = new Map<string, string>();
  for (const block of message.content) {
    if (block.type === "text" && block.text) {
      yield { type: "text-delta", text: block.text };
      const start = textLength;
      textLength += block.text.length;
      if (block.citations) yield* citationEvents(block.citations, start, textLength);
    } else if (block.type === "server_tool_use") {
      const query = searchQuery(block.input);
      if (block.id && query) queries.set(block.id, query);
    } else if (block.type === "web_search_tool_result") yield webSearchEvent(block, queries);
    else if (block.type === "thinking") yield { type: "reasoning-delta", text: block.thinking ?? "", signature: block.signature };
    else if (block.type === "tool_use") {
      const index = toolIndex++;
      yield { type: "tool-call-start", index, id: block.id ?? `toolu_${index}`, name: block.name ?? "" };
      yield { type: "tool-call-delta", index, argumentsDelta: JSON.stringify(block.input ?? {}) };
    }
  }
  yield {
    type: "finish",
    reason: fromAnthropicStopReason[message.stop_reason ?? "end_turn"] ?? "other",
    stopSequence: message.stop_sequence ?? undefined,
  };
  const usage = parseAnthropicUsage(message.usage);
  if (usage) yield { type: "usage", usage };
}
