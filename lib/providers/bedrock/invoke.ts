import { safeJson } from "@/lib/canonical/json";
import { withJsonChanges } from "@/lib/canonical/rewrite-json-object";
import type { OutgoingRequest } from "@/lib/providers/transport";
import { malformedStreamError } from "@/lib/sse/stream-errors";
import { eventStreamMessages, type EventStreamMessage } from "./event-stream";
import { anthropicErrorType, streamExceptionError } from "./parse-error";

// Anthropic's Messages API on Bedrock (InvokeModel): the Messages body without `model` and
// `stream` (the model is in the path, streaming is another path), with Bedrock's
// `anthropic_version` and the `anthropic-beta` header's flags inside it; the stream comes
// back as AWS event-stream messages, each `chunk` holding one Anthropic event, base64.

export const BEDROCK_ANTHROPIC_VERSION = "bedrock-2023-05-31";
/** Bedrock's own counts, added to the last event; Anthropic's stream has no such member. */
const INVOCATION_METRICS = "amazon-bedrock-invocationMetrics";

/** The Messages request as InvokeModel takes it: rewritten in place, the client's bytes kept elsewhere. */
export function toInvokeRequest(request: OutgoingRequest): void {
  const beta = request.headers["anthropic-beta"];
  delete request.headers["anthropic-beta"];
  delete request.headers["anthropic-version"];
  const set: Record<string, unknown> = { anthropic_version: BEDROCK_ANTHROPIC_VERSION };
  if (beta)
    set.anthropic_beta = [
      ...new Set(
        beta
          .split(",")
          .map((flag) => flag.trim())
          .filter(Boolean),
      ),
    ];
  const bytes = typeof request.body === "string" ? Buffer.from(request.body) : request.body;
  if (!Buffer.isBuffer(bytes)) return;
  request.body = withJsonChanges(bytes, { ...set, model: undefined, stream: undefined }) ?? bytes;
}

/**
 * An invoke stream as Anthropic's own SSE bytes: each event as Anthropic writes it, AWS's
 * exceptions as `error` events; one before any event fails the attempt instead, as the
 * status it stands for (throttling then fails over like a 429).
 */
export async function* anthropicSseFromEventStream(source: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  let started = false;
  for await (const batch of eventStreamMessages(source)) {
    let out = "";
    for (const message of batch) {
      if (!started && !out && message.messageType !== "event") throw streamExceptionError(message.type, exceptionText(message));
      out += anthropicFrame(message);
    }
    if (out) {
      started = true;
      yield Buffer.from(out);
    }
  }
}

function exceptionText(message: EventStreamMessage): string {
  const payload = safeJson(Buffer.from(message.payload).toString("utf8")) as { message?: unknown; Message?: unknown } | undefined;
  return String(payload?.message ?? payload?.Message ?? message.errorMessage ?? `Bedrock reported ${message.type || "an error"} in the stream.`);
}

function anthropicFrame(message: EventStreamMessage): string {
  if (message.messageType !== "event") {
    const error = { type: anthropicErrorType(message.type), message: exceptionText(message) };
    return `event: error\ndata: ${JSON.stringify({ type: "error", error })}\n\n`;
  }
  // Other events (an initial-response) carry nothing of Anthropic's.
  if (message.type !== "chunk") return "";
  const chunk = safeJson(Buffer.from(message.payload).toString("utf8")) as { bytes?: unknown } | undefined;
  if (typeof chunk?.bytes !== "string") throw malformedStreamError();
  const data = Buffer.from(chunk.bytes, "base64").toString("utf8");
  const event = safeJson(data);
  if (typeof event !== "object" || event === null || Array.isArray(event)) throw malformedStreamError();
  const record = event as Record<string, unknown>;
  const type = record.type;
  if (typeof type !== "string" || !/^[a-z_]+$/.test(type)) return "";
  if (INVOCATION_METRICS in record) {
    delete record[INVOCATION_METRICS];
    return `event: ${type}\ndata: ${JSON.stringify(record)}\n\n`;
  }
  // One data line: an event spelled over several lines is written again on one.
  return `event: ${type}\ndata: ${/[\r\n]/.test(data) ? JSON.stringify(record) : data}\n\n`;
}
