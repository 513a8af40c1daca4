import { relayedBody } from "@/lib/canonical/rewrite-json-object";
import type { Usage } from "@/lib/canonical/usage";
import type { AttemptContext, RelayedResponse, ResponsesCall } from "@/lib/providers/provider";
import { parseUpstreamJson } from "@/lib/providers/upstream-http";
import { SSE_HEADERS } from "@/lib/sse/encode-sse";
import { postOpenAI } from "./call-upstream";
import { passThroughResponsesStream } from "./pass-through-responses-stream";

// OpenAI client -> an upstream that serves /responses itself: the body goes up as the
// client's bytes but for the model, and the answer comes back as the upstream's bytes (a
// stream: pass-through-responses-stream.ts), its response object handed to the store.

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

/** `path`: /responses, or /responses/compact (whose answer is one JSON object, never a stream). */
export async function relayResponses(request: ResponsesCall["relay"], context: AttemptContext, path = "/responses"): Promise<RelayedResponse> {
  const response = await postOpenAI(
    path,
    relayedBody(
      request.bytes,
      request.body,
      {
        model: context.upstreamModel,
        // A session named only in a header (Codex's session_id) still keeps OpenAI's prompt cache warm.
        ...(context.promptCacheKey && request.body.prompt_cache_key === undefined ? { prompt_cache_key: context.promptCacheKey } : {}),
      },
      request.layout,
    ),
    context,
    request.stream,
  );
  if (request.stream) {
    const body = passThroughResponsesStream(response.body, { usage: parseResponsesUsage, keep: request.keepResponse }, context.meter);
    return { status: response.status, headers: SSE_HEADERS, body };
  }
  const bytes = await response.body.bytes();
  context.meter.markFirstToken();
  const json = parseUpstreamJson(bytes.toString("utf8")) as ({ usage?: unknown } & Record<string, unknown>) | null;
  const usage = parseResponsesUsage(json?.usage);
  if (usage) context.meter.recordUsage(usage);
  if (json && typeof json === "object" && !Array.isArray(json)) await request.keepResponse?.(json);
  return { status: response.status, headers: { "content-type": "application/json" }, body: bytes };
}
