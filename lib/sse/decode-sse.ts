import { createParser, type EventSourceMessage } from "eventsource-parser";

export type SseMessage = EventSourceMessage;

const ENDED: IteratorResult<SseMessage[]> = { done: true, value: undefined };

/**
 * Decodes a byte stream into SSE messages per the spec (CR/LF/CRLF split anywhere,
 * comments, multi-line data), pulling from the source only as fast as the consumer reads.
 * One batch per source chunk that completed any message: consumers that handle a whole
 * read at once pay one async step per read instead of one per message. A plain iterator,
 * one await per read (no generator around it).
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
      // A read that completes no message is followed by the next in the same call.
      const next = async (): Promise<IteratorResult<SseMessage[]>> => {
        while (!ended) {
          let result: IteratorResult<Uint8Array | string>;
          try {
            result = await reading.next();
          } catch (error) {
            ended = true;
            throw error;
          }
          if (ended) break;
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
          const ready = take();
          if (ready) return ready;
        }
        return ENDED;
      };
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
