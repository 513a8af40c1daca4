import { GatewayError } from "@/lib/canonical/gateway-error";
import { safeJson } from "@/lib/canonical/json";
import type { Usage } from "@/lib/canonical/usage";
import { malformedStreamError, truncatedStreamError } from "@/lib/sse/stream-errors";
import type { UsageMeter } from "@/lib/usage/usage-meter";

// A same-format OpenAI stream, relayed as the upstream's own bytes: each read is forwarded
// as one buffer of whole events (a partial event waits for the rest), and the bytes are
// only scanned for what the gateway needs: the usage event (parsed, and dropped when the
// caller did not ask for usage), an error event, the finish reason and the end marker.
// Only the first event is parsed in full, so a stream that starts with garbage still fails
// over. What JSON keys look like in the bytes is exact: inside a JSON string a quote is
// always escaped, so `"usage":{` can only be the key itself.

export interface PassThroughSpec {
  /** Usage as one chunk reports it. */
  usage(json: Record<string, unknown>): Usage | undefined;
  /** Text one chunk produced, for a tokenizer estimate when no usage ever comes. */
  outputText(json: Record<string, unknown>): string;
}

const BLANK_LINE = Buffer.from("\n\n");
const USAGE_KEY = Buffer.from('"usage":{');
const ERROR_KEY = Buffer.from('"error"');
const FINISHED = Buffer.from('"finish_reason":"');
const DONE = Buffer.from("data: [DONE]");
const OUTPUT_KEYS = [Buffer.from('"content":"'), Buffer.from('"tool_calls":['), Buffer.from('"reasoning_content":"'), Buffer.from('"text":"')];
const DONE_EVENT = Buffer.from("data: [DONE]\n\n");
const USAGE_NULL = Buffer.from(',"usage":null');

/** The buffer without any occurrence of `needle`, spliced from subarrays (no decoding). */
function removeAll(buffer: Buffer, needle: Buffer): Buffer {
  const parts: Buffer[] = [];
  let from = 0;
  for (let at = buffer.indexOf(needle); at !== -1; at = buffer.indexOf(needle, from)) {
    parts.push(buffer.subarray(from, at));
    from = at + needle.length;
  }
  if (from === 0) return buffer;
  parts.push(buffer.subarray(from));
  return Buffer.concat(parts);
}

/** The whole events (each with its blank line) of a region that ends on an event boundary. */
function* events(region: Buffer): Generator<Buffer> {
  let from = 0;
  for (let at = region.indexOf(BLANK_LINE); at !== -1; at = region.indexOf(BLANK_LINE, from)) {
    yield region.subarray(from, at + 2);
    from = at + 2;
  }
}

/** An event's `data:` JSON, or undefined (not a data event, `[DONE]`, or not JSON). */
function eventJson(event: Buffer): Record<string, unknown> | undefined {
  const text = event.toString("utf8").trim();
  if (!text.startsWith("data: ") || text === "data: [DONE]") return undefined;
  const json = safeJson(text.slice(6));
  return json !== null && typeof json === "object" ? (json as Record<string, unknown>) : undefined;
}

/** True when some output key in the region has a non-empty value (the first token, not the role chunk). */
function hasOutput(region: Buffer): boolean {
  for (const key of OUTPUT_KEYS) {
    for (let at = region.indexOf(key); at !== -1; at = region.indexOf(key, at + key.length)) {
      if (region[at + key.length] !== 0x22 && region[at + key.length] !== 0x5d) return true;
    }
  }
  return false;
}

export async function* passThroughStream(
  source: AsyncIterable<Uint8Array>,
  includeUsage: boolean,
  spec: PassThroughSpec,
  meter: UsageMeter,
): AsyncGenerator<Uint8Array> {
  let carry: Buffer | undefined;
  let first = true;
  let finished = false;
  let done = false;
  // Kept only in case no usage ever arrives: then the text is read back for an estimate.
  const unmetered: Buffer[] = [];

  const inspect = (whole: Buffer): Buffer => {
    let region = whole;
    if (first) {
      first = false;
      // Only the opening event is parsed in full: a stream that starts with garbage fails over.
      const opening = events(region).next().value;
      if (!opening || eventJson(opening) === undefined) throw malformedStreamError();
    }
    if (meter.firstTokenAt === undefined && hasOutput(region)) meter.markFirstToken();
    if (!finished && region.includes(FINISHED)) finished = true;
    if (!done && region.includes(DONE)) done = true;
    if (region.includes(ERROR_KEY)) {
      for (const event of events(region)) {
        const error = event.includes(ERROR_KEY) ? eventJson(event)?.error : undefined;
        if (error !== undefined) meter.recordError(new GatewayError("upstream_error", errorText(error)));
      }
    }
    // The upstream was asked for usage on the caller's behalf: a caller that did not ask
    // gets chunks without the `"usage":null` the upstream then adds to each.
    if (!includeUsage) region = removeAll(region, USAGE_NULL);
    if (!region.includes(USAGE_KEY)) {
      if (meter.usage === undefined) unmetered.push(region);
      return region;
    }
    const kept: Buffer[] = [];
    for (const event of events(region)) {
      const json = event.includes(USAGE_KEY) ? eventJson(event) : undefined;
      const usage = json && spec.usage(json);
      if (!json || !usage) {
        kept.push(event);
        continue;
      }
      meter.recordUsage(usage);
      if (includeUsage) kept.push(event);
      else if (Array.isArray(json.choices) && json.choices.length > 0) {
        // The caller did not ask for usage: strip the field where it rides on content.
        delete json.usage;
        kept.push(Buffer.from(`data: ${JSON.stringify(json)}\n\n`));
      }
    }
    unmetered.length = 0;
    return includeUsage ? region : Buffer.concat(kept);
  };

  try {
    yield* relayEvents();
  } finally {
    // Also for a stream cut short (the client left): what was produced is estimated.
    if (meter.usage === undefined) {
      for (const region of unmetered) {
        for (const event of events(region)) {
          const json = eventJson(event);
          if (json) meter.recordOutput(spec.outputText(json));
        }
      }
    }
  }

  async function* relayEvents(): AsyncGenerator<Uint8Array> {
    for await (const chunk of source) {
      let buffer = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      if (carry) buffer = Buffer.concat([carry, buffer]);
      // CRLF line ends (allowed by the SSE spec, rare upstream) become LF: same events.
      if (buffer.includes(0x0d)) buffer = Buffer.from(buffer.toString("utf8").replace(/\r\n?/g, "\n"));
      const end = buffer.lastIndexOf(BLANK_LINE);
      if (end === -1) {
        carry = buffer;
        continue;
      }
      carry = end + 2 < buffer.length ? buffer.subarray(end + 2) : undefined;
      const region = inspect(buffer.subarray(0, end + 2));
      if (region.length > 0) yield region;
    }
    // A last event without its blank line is still delivered, completed.
    if (carry && carry.toString("utf8").trim() !== "") {
      const region = inspect(Buffer.concat([carry, BLANK_LINE]));
      if (region.length > 0) yield region;
    }
    if (first) throw truncatedStreamError();
    if (done) return;
    // Some servers end a complete stream without `[DONE]`; clients expect it, so it is added.
    if (!finished) throw truncatedStreamError();
    yield DONE_EVENT;
  }
}

function errorText(error: unknown): string {
  if (typeof error === "string") return error;
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === "string" ? message : "The upstream reported an error mid-stream.";
}
