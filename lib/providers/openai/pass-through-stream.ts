import { GatewayError } from "@/lib/canonical/gateway-error";
import type { Usage } from "@/lib/canonical/usage";
import { eventAround, eventBounds, eventJson, MeteredRegions } from "@/lib/sse/event-regions";
import { DONE, StreamEnd } from "@/lib/sse/stream-ends";
import type { UsageMeter } from "@/lib/usage/usage-meter";
import { chatCompletionStreamEnds } from "./stream-ends";

// A same-format OpenAI stream, relayed as the upstream's own bytes: each read is forwarded
// as one buffer of whole events (a partial event waits for the rest), and the bytes are
// only scanned for what the gateway needs: the usage event (parsed, and dropped when the
// caller did not ask for usage), an error event, the finish reason and the end marker
// (what ends the stream is chatCompletionStreamEnds, as for the canonical reader).
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

const USAGE_KEY = '"usage":{';
const USAGE_NULL = ',"usage":null';
const ERROR_KEY = '"error"';
const FINISHED = '"finish_reason":"';
/** Every marker, in one pass; `[DONE]` only where an event starts. */
const MARKERS = /"usage":\{|,"usage":null|"error"|"finish_reason":"|(?:^|\n)data: \[DONE\]/g;
const OUTPUT_KEYS = ['"content":"', '"tool_calls":[', '"reasoning_content":"', '"text":"'];

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

export async function* passThroughStream(source: AsyncIterable<Uint8Array>, includeUsage: boolean, spec: PassThroughSpec, meter: UsageMeter): AsyncGenerator<Uint8Array> {
  const end = new StreamEnd(chatCompletionStreamEnds);

  const inspect = (region: Buffer, text: string): Buffer => {
    const usageAt: number[] = [];
    // The upstream was asked for usage on the caller's behalf: a caller that did not ask
    // gets chunks without the `"usage":null` the upstream then adds to each.
    const edits: [start: number, end: number, replacement?: Buffer][] = [];
    let endEvent = -1;
    MARKERS.lastIndex = 0;
    for (let match = MARKERS.exec(text); match !== null; match = MARKERS.exec(text)) {
      const marker = match[0];
      if (marker === USAGE_KEY) usageAt.push(match.index);
      else if (marker === USAGE_NULL) {
        if (!includeUsage) edits.push([match.index, match.index + USAGE_NULL.length]);
      } else if (marker === FINISHED || marker === ERROR_KEY) {
        // The event is parsed, once, for what it means to the stream's end.
        const [start, stop] = eventAround(text, match.index);
        if (start === endEvent) continue;
        endEvent = start;
        const json = eventJson(region.subarray(start, stop));
        if (json && end.see(json) === "fail") meter.recordError(new GatewayError("upstream_error", errorText(json.error)));
      } else end.see(DONE);
    }
    if (usageAt.length === 0) return applyEdits(region, edits);
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
    return applyEdits(region, edits);
  };

  const estimate = (region: Buffer) => {
    for (const [start, end] of eventBounds(region.toString("latin1"))) {
      const json = eventJson(region.subarray(start, end));
      if (json) meter.recordOutput(spec.outputText(json));
    }
  };
  const regions = new MeteredRegions(meter, { hasOutput, estimate });
  try {
    for await (const chunk of source) {
      const region = regions.push(chunk);
      const relayed = region && inspect(region.bytes, region.text);
      if (relayed && relayed.length > 0) yield relayed;
    }
    const last = regions.end();
    const relayed = last && inspect(last.bytes, last.text);
    if (relayed && relayed.length > 0) yield relayed;
  } finally {
    regions.settle();
  }
  // Some servers end a complete stream without `[DONE]`; clients expect it, so it is added.
  const closing = end.close();
  if (closing) yield Buffer.from(closing);
}

function errorText(error: unknown): string {
  if (typeof error === "string") return error;
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === "string" ? message : "The upstream reported an error mid-stream.";
}
