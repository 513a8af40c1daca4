import { GatewayError } from "@/lib/canonical/gateway-error";
import type { Usage } from "@/lib/canonical/usage";
import { parseAnthropicUsage } from "@/lib/formats/anthropic/render-usage";
import type { CallContext, RelayRequest, RelayedResponse } from "@/lib/providers/provider";
import { safeJson } from "@/lib/canonical/json";
import { parseUpstreamJson } from "@/lib/providers/upstream-http";
import { decodeSse } from "@/lib/sse/decode-sse";
import { malformedStreamError, truncatedStreamError } from "@/lib/sse/stream-errors";
import { encodeSse, SSE_HEADERS } from "@/lib/sse/encode-sse";
import type { UsageMeter } from "@/lib/usage/usage-meter";
import { postAnthropic } from "./call-upstream";

// Anthropic client -> Anthropic upstream: the body goes through as sent (with the model
// renamed), `anthropic-beta` and the version header are forwarded, and every event
// comes back unchanged while the meter reads usage from it.

export async function relayMessages(request: RelayRequest, context: CallContext): Promise<RelayedResponse> {
  const body = { ...request.body, model: context.upstreamModel };
  const response = await postAnthropic("/messages", body, context, request.clientHeaders);
  if (!request.stream) {
    const bytes = Buffer.from(await response.body.arrayBuffer());
    context.meter.markFirstToken();
    const json = parseUpstreamJson(bytes.toString("utf8")) as { usage?: unknown; content?: { text?: string; thinking?: string }[] } | null;
    const usage = parseAnthropicUsage(json?.usage);
    if (usage) context.meter.recordUsage(usage);
    else context.meter.recordOutput((json?.content ?? []).map((block) => block.text ?? block.thinking ?? "").join(""));
    return { status: response.status, headers: { "content-type": "application/json" }, body: bytes };
  }
  return { status: response.status, headers: SSE_HEADERS, body: relayStream(response.body, context.meter) };
}

async function* relayStream(source: AsyncIterable<Uint8Array>, meter: UsageMeter): AsyncGenerator<string> {
  let startUsage: Usage | undefined;
  let ended = false;
  for await (const message of decodeSse(source)) {
    const event = safeJson(message.data) as Record<string, any> | undefined;
    if (event === undefined) throw malformedStreamError();
    switch (event?.type) {
      case "message_stop":
        ended = true;
        break;
      case "message_start":
        startUsage = parseAnthropicUsage(event.message?.usage);
        break;
      case "content_block_delta": {
        const delta = event.delta ?? {};
        const text = delta.text ?? delta.thinking ?? delta.partial_json;
        if (typeof text === "string") meter.recordOutput(text);
        break;
      }
      case "content_block_start":
        if (event.content_block?.type === "tool_use") meter.recordOutput(String(event.content_block.name ?? ""));
        break;
      case "message_delta": {
        const usage = parseAnthropicUsage(event.usage, startUsage);
        if (usage) meter.recordUsage(usage);
        break;
      }
      case "error":
        ended = true;
        meter.recordError(new GatewayError("upstream_error", String(event.error?.message ?? "upstream error")));
        break;
    }
    yield encodeSse(message.data, message.event);
  }
  if (!ended) throw truncatedStreamError();
}
