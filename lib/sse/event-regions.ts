import { safeJson } from "@/lib/canonical/json";
import type { UsageMeter } from "@/lib/usage/usage-meter";
import { malformedStreamError, truncatedStreamError } from "./stream-errors";

// For relays that forward an upstream's SSE bytes as they come and only scan them: each
// read becomes one region of whole events (a partial event waits for the rest), given as
// the bytes and as latin1 text. Latin1 has one character per byte, so text positions are
// byte offsets, and every character a scan looks for is ASCII (UTF-8 never uses ASCII
// bytes inside a multibyte character).

export interface EventRegion {
  bytes: Buffer;
  text: string;
}

const CR = Buffer.from("\r");

/** LF line ends for CRLF and CR ones; on latin1 text the bytes round-trip exactly. */
function toLf(text: string): string {
  // CRLF is how some upstreams (Google's) frame every event: the plain replace is the fast one.
  const lf = text.replaceAll("\r\n", "\n");
  return lf.includes("\r") ? lf.replaceAll("\r", "\n") : lf;
}

/** Where the event around a position starts and ends (after its blank line), in a region of whole events. */
export function eventAround(text: string, at: number): [start: number, end: number] {
  const before = text.lastIndexOf("\n\n", at);
  return [before === -1 ? 0 : before + 2, text.indexOf("\n\n", at) + 2];
}

/**
 * Each event of a region that a marker matched (a global expression), once, with its data
 * as a JSON object (undefined when it is not one). The whole region is scanned before the
 * first event is given, so a caller may await between events while other streams scan
 * with the same expression.
 */
export function* markedEvents({ bytes, text }: EventRegion, markers: RegExp): Generator<Record<string, unknown> | undefined> {
  const found: [start: number, end: number][] = [];
  markers.lastIndex = 0;
  for (let match = markers.exec(text); match !== null; match = markers.exec(text)) {
    const event = eventAround(text, match.index);
    found.push(event);
    markers.lastIndex = event[1]; // one event, however many markers it holds
  }
  for (const [start, end] of found) yield eventJson(bytes.subarray(start, end));
}

/** Each whole event of a region, as [start, end) positions. */
export function* eventBounds(text: string): Generator<[start: number, end: number]> {
  let from = 0;
  for (let at = text.indexOf("\n\n"); at !== -1; at = text.indexOf("\n\n", from)) {
    yield [from, at + 2];
    from = at + 2;
  }
}

/** Whether an event is only comments (`: keep-alive`), which some upstreams send before the first real event. */
function isComment(event: string): boolean {
  // An event whose first line is a field (as nearly every one is) is not: no split needed.
  const first = event.charCodeAt(0);
  if (first !== 0x3a && first !== 0x0a) return false;
  return event.split("\n").every((line) => line === "" || line.startsWith(":"));
}

/**
 * Checks a relayed stream's opening event, the one event read in full, so a stream that
 * starts with garbage fails over. Comments before it are skipped. True once the region
 * held the opening event; false when it held only comments (look again in the next).
 */
export function openingEventChecked({ bytes, text }: EventRegion): boolean {
  for (const [start, end] of eventBounds(text)) {
    if (isComment(text.slice(start, end))) continue;
    if (eventJson(bytes.subarray(start, end)) === undefined) throw malformedStreamError();
    return true;
  }
  return false;
}

/** An event's data: its `data:` lines joined (comments, `event:` and other fields left out); undefined when it has none. */
function eventData(event: Buffer): string | undefined {
  let data: string | undefined;
  for (const line of event.toString("utf8").split("\n")) {
    if (!line.startsWith("data:")) continue;
    const value = line.charCodeAt(5) === 0x20 ? line.slice(6) : line.slice(5);
    data = data === undefined ? value : `${data}\n${value}`;
  }
  return data;
}

/**
 * An event's data as bytes, for reframing without decoding: the line's own bytes when the
 * event is one `data:` line (as upstreams send them), joined lines otherwise.
 */
export function eventDataBytes(event: Buffer): Buffer | undefined {
  const lineEnd = event.indexOf(0x0a);
  const single = lineEnd === event.length - 2 && event[0] === 0x64 && event[1] === 0x61 && event[2] === 0x74 && event[3] === 0x61 && event[4] === 0x3a;
  if (single) return event.subarray(event[5] === 0x20 ? 6 : 5, lineEnd);
  const data = eventData(event);
  return data === undefined ? undefined : Buffer.from(data, "utf8");
}

/** An event's data as a JSON object, or undefined (no data, `[DONE]`, or not a JSON object). */
export function eventJson(event: Buffer): Record<string, unknown> | undefined {
  const data = eventData(event);
  if (data === undefined || data.trim() === "[DONE]") return undefined;
  const json = safeJson(data);
  return json !== null && typeof json === "object" && !Array.isArray(json) ? (json as Record<string, unknown>) : undefined;
}

export interface RegionMetering {
  /** Whether a region holds output (the first token), read from its text. */
  hasOutput(text: string): boolean;
  /** A region's generated text, given to the meter for an estimate when no usage ever comes. */
  estimate(region: Buffer, meter: UsageMeter): void;
}

/**
 * A relayed stream's reads as regions of whole events, with what every byte relay does
 * around them: the opening event checked (so garbage fails over), the first token marked,
 * and regions kept for a tokenizer estimate until the relay records usage, read back by
 * settle() (also when the client leaves) if it never does. Each read is handled as it
 * comes, in the relay's own loop: a layer of async iteration per read costs more than the
 * scan. CRLF and CR line ends (allowed by the SSE spec, rare upstream) become LF; a CR that
 * ends a read may be half of a CRLF, so it waits for the next read.
 */
export class MeteredRegions {
  /** The read's bytes after its last whole event (a partial event waits for the rest). */
  private carry: Buffer | undefined;
  private opened = false;
  private readonly unmetered: Buffer[] = [];

  constructor(
    private readonly meter: UsageMeter,
    private readonly metering: RegionMetering,
  ) {}

  /** The whole events this read completes, or undefined when it completes none. */
  push(chunk: Uint8Array): EventRegion | undefined {
    let bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (this.carry) bytes = Buffer.concat([this.carry, bytes]);
    let text = bytes.toString("latin1");
    const heldCr = text.endsWith("\r");
    if (text.includes("\r")) {
      text = toLf(heldCr ? text.slice(0, -1) : text);
      bytes = Buffer.from(text, "latin1");
    }
    const end = text.lastIndexOf("\n\n");
    const rest = end === -1 ? bytes : bytes.subarray(end + 2);
    this.carry = heldCr ? Buffer.concat([rest, CR]) : rest.length > 0 ? rest : undefined;
    return end === -1 ? undefined : this.metered({ bytes: bytes.subarray(0, end + 2), text: text.slice(0, end + 2) });
  }

  /**
   * Once the source has ended: its last event when it came without its blank line
   * (completed). A source with no event at all was cut.
   */
  end(): EventRegion | undefined {
    const carry = this.carry;
    this.carry = undefined;
    const last = carry && carry.toString("latin1").trim() !== "" ? `${toLf(carry.toString("latin1"))}\n\n` : undefined;
    const region = last === undefined ? undefined : this.metered({ bytes: Buffer.from(last, "latin1"), text: last });
    if (!this.opened) throw truncatedStreamError();
    return region;
  }

  /** When the relay stops, however it stops: an estimate from the regions kept, if no usage came. */
  settle(): void {
    if (this.meter.usage === undefined) for (const bytes of this.unmetered) this.metering.estimate(bytes, this.meter);
    this.unmetered.length = 0;
  }

  private metered(region: EventRegion): EventRegion {
    // The relay read the regions before this one: once it has usage, they need no estimate.
    if (this.meter.usage !== undefined) this.unmetered.length = 0;
    this.opened ||= openingEventChecked(region);
    if (this.meter.firstTokenAt === undefined && this.metering.hasOutput(region.text)) this.meter.markFirstToken();
    if (this.meter.usage === undefined) this.unmetered.push(region.bytes);
    return region;
  }
}
