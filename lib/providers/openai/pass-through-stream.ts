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
//
// Each read is scanned once, as latin1 text (one character per byte, so positions are
// byte offsets, and every marker is ASCII), by one regular expression for all markers.

export interface PassThroughSpec {
  /** Usage as one chunk reports it. */
  usage(json: Record<string, unknown>): Usage | undefined;
  /** Text one chunk produced, for a tokenizer estimate when no usage ever comes. */
  outputText(json: Record<string, unknown>): string;
}

const BLANK_LINE = Buffer.from("\n\n");
const CR = Buffer.from("\r");
const USAGE_KEY = '"usage":{';
const USAGE_NULL = ',"usage":null';
const ERROR_KEY = '"error"';
const FINISHED = '"finish_reason":"';
/** Every marker, in one pass; `[DONE]` only where an event starts. */
const MARKERS = /"usage":\{|,"usage":null|"error"|"finish_reason":"|(?:^|\n)data: \[DONE\]/g;
const OUTPUT_KEYS = ['"content":"', '"tool_calls":[', '"reasoning_content":"', '"text":"'];
const DONE_EVENT = Buffer.from("data: [DONE]\n\n");

/** LF line ends for CRLF and CR ones. On latin1 text, so the bytes round-trip exactly, split characters included. */
function toLf(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}

/** Where the event around a position starts and ends (after its blank line), in a region of whole events. */
function eventAround(text: string, at: number): [start: number, end: number] {
  const before = text.lastIndexOf("\n\n", at);
  return [before === -1 ? 0 : before + 2, text.indexOf("\n\n", at) + 2];
}

/** The region with each [start, end) cut out, or replaced where a replacement is given. */
function applyEdits(region: Buffer, edits: [start: number, end: number, replacement?: Buffer][]): Buffer {
  if (edits.length === 0) return region;
  edits.sort((a, b) => a[0] - b[0]);
  const parts: Buffer[] = [];
  let from = 0;
  for (const [start, end, replacement] of edits) {
    if (start < from) continue; // inside an event already replaced
    parts.push(region.subarray(from, start));
    if (replacement) parts.push(replacement);
    from = end;
  }
  parts.push(region.subarray(from));
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
function hasOutput(text: string): boolean {
  for (const key of OUTPUT_KEYS) {
    for (let at = text.indexOf(key); at !== -1; at = text.indexOf(key, at + key.length)) {
      const next = text.charCodeAt(at + key.length);
      if (next !== 0x22 && next !== 0x5d) return true;
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

  const inspect = (region: Buffer, text: string): Buffer => {
    if (first) {
      first = false;
      // Only the opening event is parsed in full: a stream that starts with garbage fails over.
      if (eventJson(region.subarray(0, text.indexOf("\n\n") + 2)) === undefined) throw malformedStreamError();
    }
    if (meter.firstTokenAt === undefined && hasOutput(text)) meter.markFirstToken();
    const usageAt: number[] = [];
    // The upstream was asked for usage on the caller's behalf: a caller that did not ask
    // gets chunks without the `"usage":null` the upstream then adds to each.
    const edits: [start: number, end: number, replacement?: Buffer][] = [];
    let errorEvent = -1;
    MARKERS.lastIndex = 0;
    for (let match = MARKERS.exec(text); match !== null; match = MARKERS.exec(text)) {
      const marker = match[0];
      if (marker === USAGE_KEY) usageAt.push(match.index);
      else if (marker === USAGE_NULL) {
        if (!includeUsage) edits.push([match.index, match.index + USAGE_NULL.length]);
      } else if (marker === FINISHED) finished = true;
      else if (marker === ERROR_KEY) {
        const [start, end] = eventAround(text, match.index);
        if (start === errorEvent) continue;
        errorEvent = start;
        const error = eventJson(region.subarray(start, end))?.error;
        if (error !== undefined) meter.recordError(new GatewayError("upstream_error", errorText(error)));
      } else done = true;
    }
    if (usageAt.length === 0) {
      const relayed = applyEdits(region, edits);
      if (meter.usage === undefined) unmetered.push(relayed);
      return relayed;
    }
    let usageEvent = -1;
    for (const at of usageAt) {
      const [start, end] = eventAround(text, at);
      if (start === usageEvent) continue;
      usageEvent = start;
      const json = eventJson(region.subarray(start, end));
      const usage = json && spec.usage(json);
      if (!json || !usage) continue;
      meter.recordUsage(usage);
      if (includeUsage) continue;
      if (Array.isArray(json.choices) && json.choices.length > 0) {
        // The caller did not ask for usage: strip the field where it rides on content.
        delete json.usage;
        edits.push([start, end, Buffer.from(`data: ${JSON.stringify(json)}\n\n`)]);
      } else edits.push([start, end]);
    }
    unmetered.length = 0;
    return applyEdits(region, edits);
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
      let text = buffer.toString("latin1");
      // CRLF and CR line ends (allowed by the SSE spec, rare upstream) become LF: same
      // events. A CR that ends the read may be half of a CRLF: it waits for the next read.
      const heldCr = text.endsWith("\r");
      if (text.includes("\r")) {
        text = toLf(heldCr ? text.slice(0, -1) : text);
        buffer = Buffer.from(text, "latin1");
      }
      const end = text.lastIndexOf("\n\n");
      const rest = end === -1 ? buffer : buffer.subarray(end + 2);
      carry = heldCr ? Buffer.concat([rest, CR]) : rest.length > 0 ? rest : undefined;
      if (end === -1) continue;
      const region = inspect(buffer.subarray(0, end + 2), text.slice(0, end + 2));
      if (region.length > 0) yield region;
    }
    // A last event without its blank line is still delivered, completed.
    if (carry && carry.toString("latin1").trim() !== "") {
      const last = `${toLf(carry.toString("latin1"))}\n\n`;
      const region = inspect(Buffer.from(last, "latin1"), last);
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
