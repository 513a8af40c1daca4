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

export interface PerInputOptions {
  /** True once the stream has failed (after an error event): the rest is not read. */
  stopped?: () => boolean;
  /** Once the inputs have ended or stopped: the stream's closing check (it may throw) and its last events. */
  ending?: () => StreamEvent[] | undefined;
}

const ENDED: IteratorResult<StreamEvent[]> = { done: true, value: undefined };

/** Closes a source after a failure: the failure is what the caller sees, whatever closing it says. */
async function closeQuietly(iterator: AsyncIterator<unknown>): Promise<void> {
  try {
    await iterator.return?.();
  } catch {
    // The failure that stopped the stream is the one reported.
  }
}

/**
 * Runs a parser's synchronous step on each input (a batch of upstream messages) and gives
 * what it produced as one batch. A step that throws has its earlier events given first.
 * Ends early once `stopped()` says so (after an error event). A plain iterator, one await
 * per input: a stream's every read passes here, and a generator around it costs more than
 * the step. A read that produces nothing is followed by the next in the same call.
 */
export function eventsPerInput<T>(inputs: AsyncIterable<T>, step: (input: T) => Iterable<StreamEvent>, options: PerInputOptions = {}): StreamEventBatches {
  return {
    [Symbol.asyncIterator]() {
      const reading = inputs[Symbol.asyncIterator]();
      let closed = false;
      // What the next call does after a batch was given: throw the step's failure, or stop.
      let after: { error: unknown } | "stop" | undefined;
      const fail = async (error: unknown): Promise<never> => {
        closed = true;
        await closeQuietly(reading);
        throw error;
      };
      const end = async (stopping: boolean): Promise<IteratorResult<StreamEvent[]>> => {
        closed = true;
        if (stopping) await reading.return?.();
        const last = options.ending?.();
        return last && last.length > 0 ? { done: false, value: last } : ENDED;
      };
      const next = async (): Promise<IteratorResult<StreamEvent[]>> => {
        const pending = after;
        after = undefined;
        if (pending === "stop") return end(true);
        if (pending) return fail(pending.error);
        while (!closed) {
          let result: IteratorResult<T>;
          try {
            result = await reading.next();
          } catch (error) {
            closed = true;
            throw error;
          }
          // Closed while the read was pending (the client left): nothing more is made.
          if (closed) break;
          if (result.done) return end(false);
          const batch: StreamEvent[] = [];
          try {
            for (const event of step(result.value)) batch.push(event);
          } catch (error) {
            if (batch.length === 0) return fail(error);
            after = { error };
            return { done: false, value: batch };
          }
          if (options.stopped?.()) {
            if (batch.length === 0) return end(true);
            after = "stop";
            return { done: false, value: batch };
          }
          if (batch.length > 0) return { done: false, value: batch };
        }
        return ENDED;
      };
      return {
        next,
        return: async () => {
          if (!closed) {
            closed = true;
            await reading.return?.();
          }
          return ENDED;
        },
      };
    },
  };
}

export interface RenderOptions {
  /** The stream's opening, before the first batch. */
  opening?: string;
  /** The format's own error event for a failure of the events or of a step; it ends the stream. */
  failed: (error: unknown) => string;
  /** Once the events have ended: the stream's last output. */
  ending: () => string | Promise<string>;
}

const RENDERED: IteratorResult<string> = { done: true, value: undefined };

/**
 * Runs a renderer's synchronous step on every event and gives each batch's output as one
 * string, between the opening and the ending. A failure (an error event, a step that throws,
 * a stream that fails) gives the batch's earlier output first, then the format's error
 * event, and ends the stream. A plain iterator, one await per batch (no generator).
 */
export function renderPerBatch(batches: StreamEventBatches, step: (event: StreamEvent) => Iterable<string>, options: RenderOptions): AsyncIterable<string> {
  return {
    [Symbol.asyncIterator]() {
      const reading = batches[Symbol.asyncIterator]();
      let opened = options.opening === undefined;
      let closed = false;
      let failure: { error: unknown } | undefined;
      const failed = (error: unknown): IteratorResult<string> => {
        closed = true;
        const text = options.failed(error);
        return text.length > 0 ? { done: false, value: text } : RENDERED;
      };
      // A step's failure: the events are not read further.
      const stepFailed = async (error: unknown): Promise<IteratorResult<string>> => {
        closed = true;
        await closeQuietly(reading);
        return failed(error);
      };
      const next = async (): Promise<IteratorResult<string>> => {
        if (!opened) {
          opened = true;
          if (options.opening) return { done: false, value: options.opening };
        }
        const pending = failure;
        failure = undefined;
        if (pending) return stepFailed(pending.error);
        while (!closed) {
          let result: IteratorResult<StreamEvent[]>;
          try {
            result = await reading.next();
          } catch (error) {
            return closed ? RENDERED : failed(error);
          }
          // Closed while the read was pending (the client left): nothing more is rendered.
          if (closed) break;
          if (result.done) {
            closed = true;
            const text = await options.ending();
            return text.length > 0 ? { done: false, value: text } : RENDERED;
          }
          let out = "";
          try {
            for (const event of result.value) for (const text of step(event)) out += text;
          } catch (error) {
            if (out.length === 0) return stepFailed(error);
            failure = { error };
          }
          if (out.length > 0) return { done: false, value: out };
        }
        return RENDERED;
      };
      return {
        next,
        return: async () => {
          if (!closed) {
            closed = true;
            await reading.return?.();
          }
          return RENDERED;
        },
      };
    },
  };
}

/** Events produced one at a time (the mock model), as batches of one. */
export async function* oneEventPerBatch(events: AsyncIterable<StreamEvent>): AsyncGenerator<StreamEvent[]> {
  for await (const event of events) yield [event];
}
