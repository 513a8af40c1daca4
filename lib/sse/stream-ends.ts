import { truncatedStreamError } from "./stream-errors";

// What completes, fails or truncates one vendor's stream, declared once per vendor and read
// by both of its readers: the canonical parser (translation) and the byte pass-through
// (relay). Both hand each event they read to a StreamEnd; when the upstream closes, a
// stream neither completed nor failed was cut, whichever reader saw it.

/** What one event means for its stream's end: it completes it, it fails it, or neither. */
export type EndMark = "complete" | "fail" | undefined;

/** The data of `data: [DONE]`, OpenAI Chat Completions' end marker. */
export const DONE = "[DONE]";

export interface StreamEnds {
  /** What an event (its data as a JSON object, or `[DONE]`) means for the stream's end. */
  mark(event: Record<string, unknown> | typeof DONE): EndMark;
  /**
   * The end marker clients wait for, which some upstreams leave out of a complete stream
   * (a server that closes after the finish reason without `[DONE]`): the pass-through adds
   * it when `sawMarker` says it did not come.
   */
  closing?: { frame: string; sawMarker(event: Record<string, unknown> | typeof DONE): boolean };
}

/** One stream's end as its reader sees events go by. */
export class StreamEnd {
  private state: "open" | "complete" | "failed" = "open";
  private markerSeen = false;

  constructor(private readonly ends: StreamEnds) {}

  /** Notes an event; returns what it meant. Events after the end change nothing. */
  see(event: Record<string, unknown> | typeof DONE): EndMark {
    if (this.ends.closing?.sawMarker(event)) this.markerSeen = true;
    if (this.state !== "open") return undefined;
    const mark = this.ends.mark(event);
    if (mark === "complete") this.state = "complete";
    else if (mark === "fail") this.state = "failed";
    return mark;
  }

  get failed(): boolean {
    return this.state === "failed";
  }

  get ended(): boolean {
    return this.state !== "open";
  }

  /**
   * At the upstream's close: throws the truncation error when the stream neither completed
   * nor failed; otherwise the end marker to add for the client (undefined when it came).
   */
  close(): string | undefined {
    if (this.state === "open") throw truncatedStreamError();
    return this.state === "complete" && !this.markerSeen ? this.ends.closing?.frame : undefined;
  }
}
