import { GatewayError } from "@/lib/canonical/gateway-error";
import { parseGeminiUsage } from "@/lib/formats/gemini/render-usage";
import { eventAround, eventBounds, eventDataBytes, eventJson, eventRegions, openingEventChecked } from "@/lib/sse/event-regions";
import { truncatedStreamError } from "@/lib/sse/stream-errors";
import type { UsageMeter } from "@/lib/usage/usage-meter";

// A Gemini stream relayed to a Gemini client as the upstream's own chunks: each read is
// forwarded as one buffer of whole events, as SSE (`alt=sse`, what the SDKs ask for) or
// as elements of the JSON array `streamGenerateContent` returns without it. The bytes
// are scanned once per read for the keys the gateway reads; only events holding one are
// parsed, and of the usage (cumulative in every chunk) only the read's last counts. A
// function call's `args` is a JSON object whose keys appear unescaped, so a marker only
// picks an event to parse: what counts is the parsed chunk's own top-level field.

/** Keys the gateway reads: usage, and what ends a stream (a finish, an error, a blocked prompt). */
const MARKERS = /"(?:usageMetadata|finishReason|error|blockReason)"\s*:/g;
const USAGE_MARKER = '"usageMetadata"';
/** The first output: a text part or a function call. */
const FIRST_OUTPUT = /"(?:text|functionCall)"\s*:/;

type Chunk = {
  candidates?: { content?: { parts?: { text?: unknown; functionCall?: { name?: unknown } }[] }; finishReason?: unknown }[];
  usageMetadata?: unknown;
  error?: { message?: unknown };
  promptFeedback?: { blockReason?: unknown };
};

export type GeminiFraming = "sse" | "array";

export async function* passThroughGeminiStream(source: AsyncIterable<Uint8Array>, framing: GeminiFraming, meter: UsageMeter): AsyncGenerator<Uint8Array> {
  let first = true;
  let ended = false;
  let elements = 0;
  // Kept only in case no usage ever arrives: then the text is read back for an estimate.
  const unmetered: Buffer[] = [];
  try {
    for await (const region of eventRegions(source)) {
      const { bytes, text } = region;
      if (first) first = !openingEventChecked(region);
      if (meter.firstTokenAt === undefined && FIRST_OUTPUT.test(text)) meter.markFirstToken();
      ended = readMarkedEvents(region.bytes, text, meter) || ended;
      if (meter.usage === undefined) unmetered.push(bytes);
      if (framing === "sse") {
        yield bytes;
        continue;
      }
      const parts: Buffer[] = [];
      for (const [start, end] of eventBounds(text)) {
        const data = eventDataBytes(bytes.subarray(start, end));
        if (data === undefined) continue;
        parts.push(Buffer.from(elements === 0 ? "[" : ",\r\n"), data);
        elements += 1;
      }
      if (parts.length > 0) yield Buffer.concat(parts);
    }
  } finally {
    // Also for a stream cut short (the client left): what was produced is estimated.
    if (meter.usage === undefined) for (const region of unmetered) recordOutput(region, meter);
  }
  if (!ended) throw truncatedStreamError();
  if (framing === "array") yield Buffer.from(elements === 0 ? "[]" : "]");
}

/**
 * Parses the region's events that hold a marker, last first: the last usage is the one
 * that counts, so earlier events are parsed only when they may end the stream. True when
 * one of them ends it.
 */
function readMarkedEvents(bytes: Buffer, text: string, meter: UsageMeter): boolean {
  const marked: { start: number; end: number; mayEnd: boolean }[] = [];
  MARKERS.lastIndex = 0;
  for (let match = MARKERS.exec(text); match !== null; match = MARKERS.exec(text)) {
    const last = marked.at(-1);
    const mayEnd = !match[0].startsWith(USAGE_MARKER);
    if (last && match.index < last.end) {
      last.mayEnd ||= mayEnd;
      continue;
    }
    const [start, end] = eventAround(text, match.index);
    marked.push({ start, end, mayEnd });
  }
  let ended = false;
  let usageSeen = false;
  for (let index = marked.length - 1; index >= 0; index -= 1) {
    const { start, end, mayEnd } = marked[index]!;
    if (usageSeen && !mayEnd) continue;
    const chunk = eventJson(bytes.subarray(start, end)) as Chunk | undefined;
    if (chunk === undefined) continue;
    if (!usageSeen && chunk.usageMetadata !== undefined) {
      const usage = parseGeminiUsage(chunk.usageMetadata);
      if (usage) {
        usageSeen = true;
        meter.recordUsage(usage);
      }
    }
    if (chunk.error !== undefined && chunk.error !== null) {
      ended = true;
      const message = typeof chunk.error === "object" ? chunk.error.message : undefined;
      meter.recordError(new GatewayError("upstream_error", typeof message === "string" ? message : "The upstream reported an error mid-stream."));
    }
    if (chunk.promptFeedback?.blockReason || chunk.candidates?.some((candidate) => candidate?.finishReason)) ended = true;
  }
  return ended;
}

/** The text and function names a region's chunks carry, for an estimate. */
function recordOutput(region: Buffer, meter: UsageMeter): void {
  for (const [start, end] of eventBounds(region.toString("latin1"))) {
    const chunk = eventJson(region.subarray(start, end)) as Chunk | undefined;
    const parts = chunk?.candidates?.[0]?.content?.parts;
    if (!Array.isArray(parts)) continue;
    const text = parts.map((part) => (typeof part?.text === "string" ? part.text : typeof part?.functionCall?.name === "string" ? part.functionCall.name : "")).join("");
    if (text) meter.recordOutput(text);
  }
}
