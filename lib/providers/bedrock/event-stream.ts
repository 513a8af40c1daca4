import type { EventStreamCodec } from "@smithy/eventstream-codec";
import { malformedStreamError, truncatedStreamError } from "@/lib/sse/stream-errors";

// AWS's binary event stream (application/vnd.amazon.eventstream), as Bedrock streams
// answers: messages of [total length, headers length, prelude CRC, headers, payload,
// message CRC]. Reads are cut into whole messages here; the codec checks both CRCs and
// reads the headers.

// Loaded with the first Bedrock stream: a process without Bedrock channels never holds it.
let codec: Promise<EventStreamCodec> | undefined;
function loadCodec(): Promise<EventStreamCodec> {
  return (codec ??= Promise.all([import("@smithy/eventstream-codec"), import("@smithy/util-utf8")]).then(
    ([{ EventStreamCodec }, { fromUtf8, toUtf8 }]) => new EventStreamCodec(toUtf8, fromUtf8),
  ));
}
const PRELUDE_BYTES = 12;
const MIN_MESSAGE_BYTES = 16;
/** AWS caps a message at 16 MiB of payload plus 128 KiB of headers. */
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024 + 128 * 1024 + MIN_MESSAGE_BYTES;

export interface EventStreamMessage {
  /** `event`, `exception` or `error`. */
  messageType: string;
  /** The event's name (`chunk`, `messageStart`...), or the exception's (`throttlingException`). */
  type: string;
  /** For `error` messages, AWS's own message (the payload is then empty). */
  errorMessage?: string;
  payload: Uint8Array;
}

/** The messages of an event stream, one batch per read that completed any. */
export async function* eventStreamMessages(source: AsyncIterable<Uint8Array>): AsyncGenerator<EventStreamMessage[]> {
  const decoder = await loadCodec();
  let pending: Buffer = Buffer.alloc(0);
  for await (const chunk of source) {
    pending = pending.length === 0 ? Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength) : Buffer.concat([pending, chunk]);
    const batch: EventStreamMessage[] = [];
    while (pending.length >= PRELUDE_BYTES) {
      const total = pending.readUInt32BE(0);
      if (total < MIN_MESSAGE_BYTES || total > MAX_MESSAGE_BYTES) throw malformedStreamError();
      if (pending.length < total) break;
      batch.push(decodeMessage(decoder, pending.subarray(0, total)));
      pending = pending.subarray(total);
    }
    if (batch.length > 0) yield batch;
  }
  if (pending.length > 0) throw truncatedStreamError();
}

function decodeMessage(decoder: EventStreamCodec, bytes: Buffer): EventStreamMessage {
  let decoded: ReturnType<EventStreamCodec["decode"]>;
  try {
    decoded = decoder.decode(bytes);
  } catch {
    throw malformedStreamError();
  }
  const header = (name: string) => {
    const value = decoded.headers[name];
    return value?.type === "string" ? value.value : undefined;
  };
  const messageType = header(":message-type") ?? "event";
  const type = (messageType === "exception" ? header(":exception-type") : messageType === "error" ? header(":error-code") : header(":event-type")) ?? "";
  return { messageType, type, errorMessage: header(":error-message"), payload: decoded.body };
}
