import { GatewayError } from "@/lib/canonical/gateway-error";
import type { Usage } from "@/lib/canonical/usage";
import { parseAnthropicUsage } from "@/lib/formats/anthropic/render-usage";
import { type EventRegion, eventBounds, eventJson, MeteredRegions, markedEvents } from "@/lib/sse/event-regions";
import { StreamEnd } from "@/lib/sse/stream-ends";
import type { UsageMeter } from "@/lib/usage/usage-meter";
import { anthropicStreamEnds } from "./stream-ends";

// An Anthropic stream relayed to an Anthropic client as the upstream's own bytes: each read
// is forwarded as one buffer of whole events, and scanned once for the few events the
// gateway reads (usage at the start and in the final delta, the end, an error), which
// alone are parsed; what ends the stream is anthropicStreamEnds, as for the canonical reader. Only the first event is parsed in full, so a stream that starts with
// garbage still fails over. Inside a JSON string a quote is always escaped, so a
// `"type":"message_delta"` in the bytes is the key itself.

/** The events the gateway reads, in one pass. */
const MARKERS = /"type"\s*:\s*"(?:message_start|message_delta|message_stop|error)"/g;
/** The first output: a content delta, or a tool call that starts. */
const FIRST_OUTPUT = /"type"\s*:\s*"(?:content_block_delta|tool_use)"/;

export async function* passThroughMessageStream(source: AsyncIterable<Uint8Array>, meter: UsageMeter): AsyncGenerator<Uint8Array> {
  const end = new StreamEnd(anthropicStreamEnds);
  let startUsage: Usage | undefined;
  const read = (region: EventRegion) => {
    for (const event of markedEvents(region, MARKERS)) {
      if (event) end.see(event);
      switch (event?.type) {
        case "message_start":
          startUsage = parseAnthropicUsage((event.message as { usage?: unknown } | undefined)?.usage);
          break;
        case "message_delta": {
          const usage = parseAnthropicUsage(event.usage, startUsage);
          if (usage) meter.recordUsage(usage);
          break;
        }
        case "error":
          meter.recordError(new GatewayError("upstream_error", String((event.error as { message?: unknown } | undefined)?.message ?? "upstream error")));
          break;
      }
    }
    return region.bytes;
  };
  const regions = new MeteredRegions(meter, { hasOutput: (text) => FIRST_OUTPUT.test(text), estimate: recordOutput });
  try {
    for await (const chunk of source) {
      const region = regions.push(chunk);
      if (region) yield read(region);
    }
    const last = regions.end();
    if (last) yield read(last);
  } finally {
    regions.settle();
  }
  const closing = end.close();
  if (closing) yield Buffer.from(closing);
}

/** The text, thinking, tool input and tool names a region's events carry, for an estimate. */
function recordOutput(region: Buffer, meter: UsageMeter): void {
  for (const [start, end] of eventBounds(region.toString("latin1"))) {
    // biome-ignore lint/suspicious/noExplicitAny: one event's fields, each checked where read
    const event = eventJson(region.subarray(start, end)) as Record<string, any> | undefined;
    if (event?.type === "content_block_delta") {
      const delta = event.delta ?? {};
      const text = delta.text ?? delta.thinking ?? delta.partial_json;
      if (typeof text === "string") meter.recordOutput(text);
    } else if (event?.type === "content_block_start" && event.content_block?.type === "tool_use") {
      meter.recordOutput(String(event.content_block.name ?? ""));
    }
  }
}
