import { randomUUID } from "node:crypto";
import { GatewayError } from "@/lib/canonical/gateway-error";
import { safeJson } from "@/lib/canonical/json";
import { eventsPerInput, type StreamEvent, type StreamEventBatches } from "@/lib/canonical/stream-event";
import { malformedStreamError } from "@/lib/sse/stream-errors";
import { StreamEnd, type StreamEnds } from "@/lib/sse/stream-ends";
import type { EventStreamMessage } from "../event-stream";
import { converseResponseSchema, converseStreamEventSchemas } from "./converse-api";
import { parseConverseUsage } from "./converse-usage";
import { streamExceptionError } from "../parse-error";
import { fromConverseStopReason } from "./map-stop-reason";

// ConverseStream (AWS event-stream messages) -> canonical events. Tool calls get their own
// dense index; `messageStop` carries the stop reason and `metadata`, after it, the usage.

/**
 * messageStop completes a Converse stream (only the usage follows); an exception inside it
 * (throttling, a model error) fails it.
 */
export const converseStreamEnds: StreamEnds = {
  mark(event) {
    if (typeof event === "string") return undefined;
    if (event.type === "messageStop") return "complete";
    return event.exception ? "fail" : undefined;
  },
};

export function parseConverseStream(batches: AsyncIterable<EventStreamMessage[]>, model: string): StreamEventBatches {
  const toolIndexes = new Map<number, number>();
  const end = new StreamEnd(converseStreamEnds);
  let failed = false;
  function* step(batch: EventStreamMessage[]): Generator<StreamEvent> {
    for (const message of batch) {
      const json = safeJson(Buffer.from(message.payload).toString("utf8") || "{}");
      if (json === undefined) throw malformedStreamError();
      if (message.messageType !== "event") {
        end.see({ exception: message.type });
        failed = true;
        const text = (json as { message?: unknown } | null)?.message ?? message.errorMessage ?? "The upstream reported an error.";
        const error = streamExceptionError(message.type, String(text));
        yield { type: "error", error };
        return;
      }
      end.see({ type: message.type });
      switch (message.type) {
        case "messageStart":
          yield { type: "message-start", id: `bedrock-${randomUUID()}`, model, created: Math.floor(Date.now() / 1000) };
          break;
        case "contentBlockStart": {
          const event = converseStreamEventSchemas.contentBlockStart.safeParse(json);
          const toolUse = event.success ? event.data.start?.toolUse : undefined;
          if (event.success && toolUse) {
            const index = toolIndexes.size;
            toolIndexes.set(event.data.contentBlockIndex, index);
            yield { type: "tool-call-start", index, id: toolUse.toolUseId, name: toolUse.name };
          }
          break;
        }
        case "contentBlockDelta": {
          const event = converseStreamEventSchemas.contentBlockDelta.safeParse(json);
          if (!event.success) break;
          const delta = event.data.delta;
          if (delta.text) yield { type: "text-delta", text: delta.text };
          const input = delta.toolUse?.input;
          const index = toolIndexes.get(event.data.contentBlockIndex);
          if (input && index !== undefined) yield { type: "tool-call-delta", index, argumentsDelta: input };
          const reasoning = delta.reasoningContent;
          if (reasoning?.text) yield { type: "reasoning-delta", text: reasoning.text };
          if (reasoning?.signature) yield { type: "reasoning-delta", text: "", signature: reasoning.signature };
          break;
        }
        case "messageStop": {
          const event = converseStreamEventSchemas.messageStop.safeParse(json);
          const reason = event.success ? event.data.stopReason : undefined;
          yield { type: "finish", reason: fromConverseStopReason[reason ?? "end_turn"] ?? "other" };
          break;
        }
        case "metadata": {
          const event = converseStreamEventSchemas.metadata.safeParse(json);
          const usage = event.success ? parseConverseUsage(event.data.usage) : undefined;
          if (usage) yield { type: "usage", usage };
          break;
        }
      }
    }
  }
  return eventsPerInput(batches, step, {
    stopped: () => failed,
    ending: () => {
      if (!failed) end.close();
      return undefined;
    },
  });
}

/** A Converse answer as the same canonical event sequence. */
export function* converseResponseEvents(json: unknown, model: string): Generator<StreamEvent> {
  const parsed = converseResponseSchema.safeParse(json);
  if (!parsed.success) {
    throw new GatewayError("bad_gateway", "The upstream returned a response the gateway could not read.", { code: "invalid_upstream_response" });
  }
  const answer = parsed.data;
  yield { type: "message-start", id: `bedrock-${randomUUID()}`, model, created: Math.floor(Date.now() / 1000) };
  let toolIndex = 0;
  for (const block of answer.output.message?.content ?? []) {
    if (block.text) yield { type: "text-delta", text: block.text };
    else if (block.reasoningContent?.reasoningText) {
      const reasoning = block.reasoningContent.reasoningText;
      yield { type: "reasoning-delta", text: reasoning.text ?? "", signature: reasoning.signature };
    } else if (block.toolUse) {
      const index = toolIndex++;
      yield { type: "tool-call-start", index, id: block.toolUse.toolUseId, name: block.toolUse.name };
      yield { type: "tool-call-delta", index, argumentsDelta: JSON.stringify(block.toolUse.input ?? {}) };
    }
  }
  yield { type: "finish", reason: fromConverseStopReason[answer.stopReason ?? "end_turn"] ?? "other" };
  const usage = parseConverseUsage(answer.usage);
  if (usage) yield { type: "usage", usage };
}
