import { createParser, type EventSourceMessage } from "eventsource-parser";

export type SseMessage = EventSourceMessage;

/**
 * Decodes a byte stream into SSE messages per the spec (CR/LF/CRLF split anywhere,
 * comments, multi-line data), pulling from the source only as fast as the consumer reads.
 * One batch per source chunk that completed any message: consumers that handle a whole
 * read at once pay one async step per read instead of one per message.
 */
export async function* decodeSseBatches(source: AsyncIterable<Uint8Array | string>): AsyncGenerator<SseMessage[]> {
  const decoder = new TextDecoder();
  let pending: SseMessage[] = [];
  const parser = createParser({ onEvent: (message) => pending.push(message) });
  for await (const chunk of source) {
    parser.feed(typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true }));
    if (pending.length > 0) {
      const ready = pending;
      pending = [];
      yield ready;
    }
  }
  parser.feed(decoder.decode());
  // A final event without its blank line is still delivered; the spec would drop it,
  // but several upstreams end streams that way.
  parser.feed("\n\n");
  if (pending.length > 0) yield pending;
}

/** The same, one message at a time. */
export async function* decodeSse(source: AsyncIterable<Uint8Array | string>): AsyncGenerator<SseMessage> {
  for await (const batch of decodeSseBatches(source)) yield* batch;
}
