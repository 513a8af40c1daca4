import { GatewayError } from "@/lib/canonical/gateway-error";
import { parseOpenAIUsage } from "@/lib/formats/openai/render-usage";
import type { CallContext, RelayRequest, RelayedResponse } from "@/lib/providers/provider";
import { decodeSse } from "@/lib/sse/decode-sse";
import { encodeSse, SSE_HEADERS } from "@/lib/sse/encode-sse";
import type { UsageMeter } from "@/lib/usage/usage-meter";
import { postOpenAI } from "./call-upstream";
import { safeJson } from "@/lib/canonical/json";
import { parseUpstreamJson } from "@/lib/providers/upstream-http";
import { malformedStreamError, truncatedStreamError } from "@/lib/sse/stream-errors";

// OpenAI client -> OpenAI-type upstream: the body goes through as sent (unknown fields
// included) with only the model renamed, and the answer comes back byte for byte,
// except that the gateway always asks for usage and hides that chunk from callers
// who did not ask for it.

export async function relayChatCompletion(request: RelayRequest, context: CallContext): Promise<RelayedResponse> {
  const body: Record<string, unknown> = { ...request.body, model: context.upstreamModel };
  if (request.stream) {
    body.stream_options = { ...(request.body.stream_options as object | undefined), include_usage: true };
  }
  const response = await postOpenAI("/chat/completions", body, context);
  if (!request.stream) {
    const bytes = Buffer.from(await response.body.arrayBuffer());
    context.meter.markFirstToken();
    // A 200 that is not JSON is the upstream's failure (and fails over), never the client's answer.
    meterCompletion(parseUpstreamJson(bytes.toString("utf8")), context.meter);
    return { status: response.status, headers: { "content-type": "application/json" }, body: bytes };
  }
  return {
    status: response.status,
    headers: SSE_HEADERS,
    body: relayStream(response.body, request.includeUsage, context.meter),
  };
}

async function* relayStream(
  source: AsyncIterable<Uint8Array>,
  includeUsage: boolean,
  meter: UsageMeter,
): AsyncGenerator<string> {
  let finished = false;
  for await (const message of decodeSse(source)) {
    if (message.data === "[DONE]") {
      yield encodeSse("[DONE]");
      return;
    }
    const chunk = safeJson(message.data) as Record<string, unknown> | undefined;
    if (chunk === undefined) throw malformedStreamError();
    if (!chunk || typeof chunk !== "object") {
      yield encodeSse(message.data, message.event);
      continue;
    }
    if ((chunk.choices as { finish_reason?: unknown }[] | undefined)?.some((choice) => choice?.finish_reason)) finished = true;
    if (chunk.error !== undefined) {
      meter.recordError(new GatewayError("upstream_error", errorText(chunk.error)));
      yield encodeSse(message.data, message.event);
      continue;
    }
    meterChunk(chunk, meter);
    if (includeUsage || !("usage" in chunk)) {
      yield encodeSse(message.data, message.event);
      continue;
    }
    // The caller did not ask for usage: drop the usage-only chunk, strip the field elsewhere.
    const choices = chunk.choices as unknown[] | undefined;
    if (chunk.usage && (!choices || choices.length === 0)) continue;
    delete chunk.usage;
    yield encodeSse(JSON.stringify(chunk), message.event);
  }
  // Some servers end a complete stream without `[DONE]`; clients expect it, so it is added.
  if (!finished) throw truncatedStreamError();
  yield encodeSse("[DONE]");
}

function errorText(error: unknown): string {
  if (typeof error === "string") return error;
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === "string" ? message : "The upstream reported an error mid-stream.";
}

type Delta = { content?: string | null; reasoning_content?: string | null; reasoning?: string | null; tool_calls?: { function?: { name?: string; arguments?: string } }[] };

function meterChunk(chunk: Record<string, unknown>, meter: UsageMeter): void {
  const choices = chunk.choices as { delta?: Delta }[] | undefined;
  const delta = choices?.[0]?.delta;
  if (delta) {
    let text = (delta.content ?? "") + (delta.reasoning_content ?? delta.reasoning ?? "");
    for (const call of delta.tool_calls ?? []) text += (call.function?.name ?? "") + (call.function?.arguments ?? "");
    if (text) meter.recordOutput(text);
  }
  const usage = parseOpenAIUsage(chunk.usage);
  if (usage) meter.recordUsage(usage);
}

function meterCompletion(json: unknown, meter: UsageMeter): void {
  const response = json as { choices?: { message?: Delta }[]; usage?: unknown } | undefined;
  const usage = parseOpenAIUsage(response?.usage);
  if (usage) {
    meter.recordUsage(usage);
    return;
  }
  for (const choice of response?.choices ?? []) {
    const message = choice.message;
    if (!message) continue;
    let text = (message.content ?? "") + (message.reasoning_content ?? "");
    for (const call of message.tool_calls ?? []) text += (call.function?.name ?? "") + (call.function?.arguments ?? "");
    meter.recordOutput(text);
  }
}
