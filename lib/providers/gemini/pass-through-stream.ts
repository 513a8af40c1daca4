import { GatewayError } from "@/lib/canonical/gateway-error";
import { parseGeminiUsage } from "@/lib/formats/gemini/render-usage";
import { type EventRegion, eventAround, eventBounds, eventDataBytes, eventJson, MeteredRegions } from "@/lib/sse/event-regions";
import { StreamEnd } from "@/lib/sse/stream-ends";
import type { UsageMeter } from "@/lib/usage/usage-meter";
import { geminiStreamEnds } from "./stream-ends";

// A Gemini stream relayed to a Gemini client as the upstream's own chunks: each read is
// forwarded as one buffer of whole events, as SSE (`alt=sse`, what the SDKs ask for) or
// as elements of the JSON array `streamGenerateContent` returns without it. The bytes
// are scanned once per read for the keys the gateway reads, and few events are parsed:
// those that may end the stream, and of the usage (cumulative, on every chunk) the first
// and the last. A function call's `args` is a JSON object whose keys appear unescaped,
// so a marker only picks an event to parse: what counts is the parsed chunk's own field.

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
const ARRAY_OPEN = Buffer.from("[");
const ARRAY_SEPARATOR = Buffer.from(",\r\n");

export async function* passThroughGeminiStream(source: AsyncIterable<Uint8Array>, framing: GeminiFraming, meter: UsageMeter): AsyncGenerator<Uint8Array> {
  const end = new StreamEnd(geminiStreamEnds);
  let elements = 0;
  const usage = new LatestUsage(meter);
  // Once the first usage is read nothing is kept for an estimate; a later one waits in `usage`.
  const regions = new MeteredRegions(meter, { hasOutput: (text) => FIRST_OUTPUT.test(text), estimate: recordOutput });
  const frame = ({ bytes, text }: EventRegion): Buffer | undefined => {
    readMarkedEvents(bytes, text, meter, usage, end);
    if (framing === "sse") return bytes;
    const parts: Buffer[] = [];
    for (const [start, end] of eventBounds(text)) {
      const data = eventDataBytes(bytes.subarray(start, end));
      if (data === undefined) continue;
      parts.push(elements === 0 ? ARRAY_OPEN : ARRAY_SEPARATOR, data);
      elements += 1;
    }
    return parts.length > 0 ? Buffer.concat(parts) : undefined;
  };
  try {
    for await (const chunk of source) {
      const region = regions.push(chunk);
      const framed = region && frame(region);
      if (framed) yield framed;
    }
    const last = regions.end();
    const framed = last && frame(last);
    if (framed) yield framed;
  } finally {
    // Also for a stream cut short (the client left): the last usage noted counts, and
    // what was kept for an estimate is read when none came.
    usage.settle();
    regions.settle();
  }
  end.close();
  if (framing === "array") yield Buffer.from(elements === 0 ? "[]" : "]");
}

/**
 * Gemini repeats the usage so far on every chunk, and only the last one counts: the first
 * is read at once (from then on the meter has usage, so nothing is kept for an estimate),
 * later ones are only noted and the last of them read when the stream ends. A marker
 * that turns out not to be the chunk's own usage leaves the usage read before.
 */
class LatestUsage {
  private pending: Buffer | undefined;

  constructor(private readonly meter: UsageMeter) {}

  /** Reads a chunk's own usage; true when it had one. */
  read(chunk: Chunk | undefined): boolean {
    const usage = chunk?.usageMetadata === undefined ? undefined : parseGeminiUsage(chunk.usageMetadata);
    if (usage) this.meter.recordUsage(usage);
    return usage !== undefined;
  }

  note(event: Buffer): void {
    if (this.meter.usage === undefined) this.read(eventJson(event) as Chunk | undefined);
    else this.pending = event;
  }

  /** The event noted last was read already. */
  clear(): void {
    this.pending = undefined;
  }

  settle(): void {
    if (this.pending) this.read(eventJson(this.pending) as Chunk | undefined);
    this.pending = undefined;
  }
}

/**
 * Reads the region's events that hold a marker: those that may end the stream at once
 * (told to `end`; an error is recorded), the last one holding usage through `usage`.
 */
function readMarkedEvents(bytes: Buffer, text: string, meter: UsageMeter, usage: LatestUsage, end: StreamEnd): void {
  let current: { start: number; end: number; usage: boolean; mayEnd: boolean } | undefined;
  let lastUsage: Buffer | undefined;
  const finish = () => {
    if (!current) return;
    const event = bytes.subarray(current.start, current.end);
    if (current.mayEnd) {
      const json = eventJson(event);
      const chunk = json as Chunk | undefined;
      if (json && end.see(json) === "fail") meter.recordError(new GatewayError("upstream_error", errorMessage(chunk?.error)));
      if (current.usage && usage.read(chunk)) {
        lastUsage = undefined;
        usage.clear();
        return;
      }
    }
    if (current.usage) lastUsage = event;
  };
  MARKERS.lastIndex = 0;
  for (let match = MARKERS.exec(text); match !== null; match = MARKERS.exec(text)) {
    const isUsage = match[0].startsWith(USAGE_MARKER);
    if (!current || match.index >= current.end) {
      finish();
      const [start, end] = eventAround(text, match.index);
      current = { start, end, usage: false, mayEnd: false };
    }
    if (isUsage) current.usage = true;
    else current.mayEnd = true;
  }
  finish();
  if (lastUsage) usage.note(lastUsage);
}

function errorMessage(error: Chunk["error"]): string {
  const message = typeof error === "object" && error !== null ? error.message : undefined;
  return typeof message === "string" ? message : "The upstream reported an error mid-stream.";
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
