import { relayedBody } from "@/lib/canonical/rewrite-json-object";
import { parseAnthropicUsage } from "@/lib/formats/anthropic/render-usage";
import type { AttemptContext, RelayRequest, RelayedResponse } from "@/lib/providers/provider";
import { parseUpstreamJson } from "@/lib/providers/upstream-http";
import { SSE_HEADERS } from "@/lib/sse/encode-sse";
import { postAnthropic } from "./call-upstream";
import { passThroughMessageStream } from "./pass-through-stream";

// Anthropic client -> Anthropic upstream: the body goes through as the client's own bytes
// (with the model renamed where the channel maps it), `anthropic-beta` and the version
// header are forwarded, and the stream comes back as the upstream's own bytes while the
// meter reads usage from it (pass-through-stream.ts).

export async function relayMessages(request: RelayRequest, context: AttemptContext): Promise<RelayedResponse> {
  const changes = request.body.model === context.upstreamModel ? {} : { model: context.upstreamModel };
  const response = await postAnthropic("/messages", relayedBody(request.bytes, request.body, changes, request.layout), context, {
    clientHeaders: request.clientHeaders,
    stream: request.stream,
  });
  if (!request.stream) {
    const bytes = await response.body.bytes();
    context.meter.markFirstToken();
    const json = parseUpstreamJson(bytes.toString("utf8")) as { usage?: unknown; content?: { text?: string; thinking?: string }[] } | null;
    const usage = parseAnthropicUsage(json?.usage);
    if (usage) context.meter.recordUsage(usage);
    else context.meter.recordOutput((json?.content ?? []).map((block) => block.text ?? block.thinking ?? "").join(""));
    return { status: response.status, headers: { "content-type": "application/json" }, body: bytes };
  }
  return { status: response.status, headers: SSE_HEADERS, body: passThroughMessageStream(response.body, context.meter) };
}
