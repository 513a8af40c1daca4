import { safeJson } from "@/lib/canonical/json";
import type { Usage } from "@/lib/canonical/usage";
import type { Relay, RelayedResponse } from "@/lib/providers/provider";
import { parseUpstreamJson } from "@/lib/providers/upstream-http";
import { decodeSse } from "@/lib/sse/decode-sse";
import { encodeSse, SSE_HEADERS } from "@/lib/sse/encode-sse";
import { malformedStreamError, truncatedStreamError } from "@/lib/sse/stream-errors";
import type { UsageMeter } from "@/lib/usage/usage-meter";
import { postOpenAI } from "./call-upstream";

// OpenAI client -> an upstream that serves /responses itself: the body goes through as
// sent but for the model, and the answer (named events, when streamed) comes back as
// sent. A stream is complete only once response.completed, .incomplete or .failed came.

const FINAL_EVENTS = new Set(["response.completed", "response.incomplete", "response.failed", "error"]);

export function parseResponsesUsage(raw: unknown): Usage | undefined {
  if (typeof raw !== "object" || raw === null) return undefined;
  const usage = raw as { input_tokens?: number; output_tokens?: number; input_tokens_details?: { cached_tokens?: number }; output_tokens_details?: { reasoning_tokens?: number } };
  if (typeof usage.input_tokens !== "number") return undefined;
  return {
    promptTokens: usage.input_tokens,
    completionTokens: usage.output_tokens ?? 0,
    cachedTokens: usage.input_tokens_details?.cached_tokens || undefined,
    reasoningTokens: usage.output_tokens_details?.reasoning_tokens || undefined,
  };
}

export const relayResponses: Relay = async (request, context): Promise<RelayedResponse> => {
  const response = await postOpenAI("/responses", { ...request.body, model: context.upstreamModel }, context);
  if (request.stream) return { status: response.status, headers: SSE_HEADERS, body: relayStream(response.body, context.meter) };
  const bytes = Buffer.from(await response.body.arrayBuffer());
  context.meter.markFirstToken();
  const json = parseUpstreamJson(bytes.toString("utf8")) as { usage?: unknown } | null;
  const usage = parseResponsesUsage(json?.usage);
  if (usage) context.meter.recordUsage(usage);
  return { status: response.status, headers: { "content-type": "application/json" }, body: bytes };
};

async function* relayStream(source: AsyncIterable<Uint8Array>, meter: UsageMeter): AsyncGenerator<string> {
  let ended = false;
  for await (const message of decodeSse(source)) {
    const event = safeJson(message.data) as { type?: string; delta?: unknown; response?: { usage?: unknown } } | undefined;
    if (event === undefined) throw malformedStreamError();
    const type = event?.type ?? message.event ?? "";
    if (type.endsWith(".delta") && typeof event?.delta === "string") meter.recordOutput(event.delta);
    if (FINAL_EVENTS.has(type)) {
      ended = true;
      const usage = parseResponsesUsage(event?.response?.usage);
      if (usage) meter.recordUsage(usage);
    }
    yield encodeSse(message.data, message.event);
  }
  if (!ended) throw truncatedStreamError();
}
