import type { FinishReason } from "@/lib/canonical/finish-reason";
import type { GatewayError } from "@/lib/canonical/gateway-error";
import type { Usage } from "@/lib/canonical/usage";

export interface WebSource {
  url: string;
  title?: string;
}

// What a provider yields while generating. Non-streaming calls yield the same events
// and the client format aggregates them (lib/canonical/collect-response.ts).
export type StreamEvent =
  | { type: "message-start"; id: string; model: string; created: number }
  | { type: "text-delta"; text: string }
  | { type: "reasoning-delta"; text: string; signature?: string }
  | { type: "tool-call-start"; index: number; id: string; name: string }
  | { type: "tool-call-delta"; index: number; argumentsDelta: string }
  | { type: "web-search"; id: string; status: "completed" | "failed"; queries: string[]; sources: WebSource[] }
  /** A source the text cites: `start`..`end` count characters of all text-delta text so far. */
  | { type: "citation"; url: string; title?: string; start: number; end: number }
  | { type: "usage"; usage: Usage }
  | { type: "finish"; reason: FinishReason; stopSequence?: string }
  | { type: "error"; error: GatewayError };

/**
 * A stream's events in batches, one per upstream read: each stage (metering, rendering,
 * writing) then takes one asynchronous step per read rather than per event.
 */
export type StreamEventBatches = AsyncIterable<StreamEvent[]>;

/**
 * Runs a parser's synchronous step on each input (a batch of upstream messages) and yields
 * what it produced as one batch. A step that throws has its earlier events yielded first.
 * Ends early once `stopped()` says so (after an error event).
 */
export async function* eventsPerInput<T>(inputs: AsyncIterable<T>, step: (input: T) => Iterable<StreamEvent>, stopped?: () => boolean): AsyncGenerator<StreamEvent[]> {
  for await (const input of inputs) {
    const batch: StreamEvent[] = [];
    let failure: { error: unknown } | undefined;
    try {
      for (const event of step(input)) batch.push(event);
    } catch (error) {
      failure = { error };
    }
    if (batch.length > 0) yield batch;
    if (failure) throw failure.error;
    if (stopped?.()) return;
  }
}

/**
 * Runs a renderer's synchronous step on every event and yields each batch's output as one
 * string. A step that throws (an error event) has the batch's earlier output yielded first.
 */
export async function* renderPerBatch(batches: StreamEventBatches, step: (event: StreamEvent) => Iterable<string>): AsyncGenerator<string> {
  for await (const batch of batches) {
    let out = "";
    let failure: { error: unknown } | undefined;
    try {
      for (const event of batch) for (const text of step(event)) out += text;
    } catch (error) {
      failure = { error };
    }
    if (out.length > 0) yield out;
    if (failure) throw failure.error;
  }
}

/** Events produced one at a time (the mock model), as batches of one. */
export async function* oneEventPerBatch(events: AsyncIterable<StreamEvent>): AsyncGenerator<StreamEvent[]> {
  for await (const event of events) yield [event];
}
