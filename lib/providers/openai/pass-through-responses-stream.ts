import { GatewayError } from "@/lib/canonical/gateway-error";
import type { Usage } from "@/lib/canonical/usage";
import { type EventRegion, eventBounds, eventJson, MeteredRegions, markedEvents } from "@/lib/sse/event-regions";
import { StreamEnd } from "@/lib/sse/stream-ends";
import type { UsageMeter } from "@/lib/usage/usage-meter";
import { responsesStreamEnds } from "./stream-ends";

// A Responses API stream relayed to an OpenAI client as the upstream's own bytes: each
// read is forwarded as one buffer of whole events, scanned once for the events that end
// a stream (`response.completed`, `.incomplete`, `.failed`, `error`: responsesStreamEnds,
// as for every reader of this stream), which alone are parsed: they carry the usage and the response object the gateway stores. Only the
// first event is parsed in full, so a stream that starts with garbage still fails over.

const FINAL = /"type"\s*:\s*"(?:response\.completed|response\.incomplete|response\.failed|error)"/g;
/** The first output: any delta (text, reasoning, a call's arguments). */
const FIRST_OUTPUT = /"type"\s*:\s*"response\.[a-z_.]*delta"/;

type FinalEvent = { type?: unknown; response?: Record<string, unknown> & { usage?: unknown; error?: { message?: unknown } | null }; message?: unknown };

export interface ResponsesStreamSpec {
  usage(raw: unknown): Usage | undefined;
  /**
   * Called with the response object of a completed or incomplete answer, and awaited
   * before the event that carries it is forwarded (so a continuation sent the moment the
   * client sees the end finds it).
   */
  keep?: (response: Record<string, unknown>) => Promise<void>;
}

export async function* passThroughResponsesStream(source: AsyncIterable<Uint8Array>, spec: ResponsesStreamSpec, meter: UsageMeter): AsyncGenerator<Uint8Array> {
  const end = new StreamEnd(responsesStreamEnds);
  /** Reads a region's final events; the response objects to keep before it is forwarded. */
  const read = (region: EventRegion): Record<string, unknown>[] => {
    const kept: Record<string, unknown>[] = [];
    for (const found of markedEvents(region, FINAL)) {
      const event = found as (FinalEvent & Record<string, unknown>) | undefined;
      const mark = event && end.see(event);
      if (!event || !mark) continue;
      const usage = spec.usage(event.response?.usage);
      if (usage) meter.recordUsage(usage);
      if (mark === "fail") {
        const message = event.type === "error" ? event.message : event.response?.error?.message;
        meter.recordError(new GatewayError("upstream_error", typeof message === "string" ? message : "The upstream reported an error mid-stream."));
      } else if (event.response && spec.keep) kept.push(event.response);
    }
    return kept;
  };
  const regions = new MeteredRegions(meter, { hasOutput: (text) => FIRST_OUTPUT.test(text), estimate: recordOutput });
  try {
    for await (const chunk of source) {
      const region = regions.push(chunk);
      if (!region) continue;
      // Only a region that ends the answer waits, for its response to be kept.
      for (const response of read(region)) await spec.keep?.(response);
      yield region.bytes;
    }
    const last = regions.end();
    if (last) {
      for (const response of read(last)) await spec.keep?.(response);
      yield last.bytes;
    }
  } finally {
    regions.settle();
  }
  end.close();
}

/** The deltas a region's events carry, for an estimate. */
function recordOutput(region: Buffer, meter: UsageMeter): void {
  for (const [start, end] of eventBounds(region.toString("latin1"))) {
    const event = eventJson(region.subarray(start, end));
    if (typeof event?.type === "string" && event.type.endsWith(".delta") && typeof event.delta === "string") meter.recordOutput(event.delta);
  }
}
