import { createParser, type EventSourceMessage } from "eventsource-parser";

export type SseMessage = EventSourceMessage;

const ENDED: IteratorResult<SseMessage[]> = { done: true, value: undefined };

/**
 * Decodes a byte stream into SSE messages per the spec (CR/LF/CRLF split anywhere,
 * comments, multi-line data), pulling from the source only as fast as the consumer reads.
 * One batch per source chunk that completed any message: consumers that handle a whole
 * read at once pay one async step per read instead of one per message. A plain iterator,
 * one promise per read (no generator around it).
 */
export function decodeSseBatches(source: AsyncIterable<Uint8Array | string>): AsyncIterable<SseMessage[]> {
  return {
    [Symbol.asyncIterator]() {
      const reading = source[Symbol.asyncIterator]();
      const decoder = new TextDecoder();
      let pending: SseMessage[] = [];
      const parser = createParser({ onEvent: (message) => pending.push(message) });
      let ended = false;
      const take = (): IteratorResult<SseMessage[]> | undefined => {
        if (pending.length === 0) return undefined;
        const ready = pending;
        pending = [];
        return { done: false, value: ready };
      };
      const read = (result: IteratorResult<Uint8Array | string>): IteratorResult<SseMessage[]> | Promise<IteratorResult<SseMessage[]>> => {
        if (result.done) {
          ended = true;
          parser.feed(decoder.decode());
          // A final event without its blank line is still delivered; the spec would drop
          // it, but several upstreams end streams that way.
          parser.feed("\n\n");
          return take() ?? ENDED;
        }
        const chunk = result.value;
        parser.feed(typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true }));
        return take() ?? next();
      };
      const next = (): Promise<IteratorResult<SseMessage[]>> => (ended ? Promise.resolve(ENDED) : reading.next().then(read));
      return {
        next,
        return: async () => {
          if (!ended) {
            ended = true;
            await reading.return?.();
          }
          return ENDED;
        },
      };
    },
  };
}

/** The same, one message at a time. */
export async function* decodeSse(source: AsyncIterable<Uint8Array | string>): AsyncGenerator<SseMessage> {
  for await (const batch of decodeSseBatches(source)) yield* batch;
}
