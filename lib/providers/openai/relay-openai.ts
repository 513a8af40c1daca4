import { GatewayError } from "@/lib/canonical/gateway-error";
import { relayedBody } from "@/lib/canonical/rewrite-json-object";
import type { Usage } from "@/lib/canonical/usage";
import { parseOpenAIUsage } from "@/lib/formats/openai/render-usage";
import type { SpooledForm } from "@/lib/gateway/multipart";
import type { AttemptContext, RelayRequest, RelayedResponse } from "@/lib/providers/provider";
import { parseUpstreamJson } from "@/lib/providers/upstream-http";
import { SSE_HEADERS } from "@/lib/sse/encode-sse";
import type { UsageMeter } from "@/lib/usage/usage-meter";
import { postOpenAI, postOpenAIBody } from "./call-upstream";
import { passThroughStream } from "./pass-through-stream";

// OpenAI client -> OpenAI-type upstream, for any OpenAI-format operation: the body goes
// through as sent (unknown fields included) with only the model renamed, and the answer
// comes back byte for byte, metered on the way. Streams always ask the upstream for
// usage and hide that chunk from callers who did not ask for it.

/** A relay of one OpenAI-format endpoint: the client's body (or upload) in, the upstream's answer out. */
export type Relay = (request: RelayRequest & { form?: SpooledForm }, context: AttemptContext) => Promise<RelayedResponse>;

export interface OpenAIRelaySpec {
  /** Upstream path under the channel's base URL. */
  path: string;
  /** Text an answer (or one stream chunk) produced, for a tokenizer estimate when no usage comes. */
  outputText(json: Record<string, unknown>): string;
  /** Usage as the answer reports it (default: OpenAI's `usage` object). */
  usage?(json: Record<string, unknown>): Usage | undefined;
  /** Whether the endpoint takes `prompt_cache_key` (sent from the client's session when its body has none). */
  promptCache?: boolean;
}

type Choice = {
  text?: string | null;
  finish_reason?: string | null;
  delta?: Delta;
  message?: Delta;
};
type Delta = {
  content?: string | null;
  reasoning_content?: string | null;
  reasoning?: string | null;
  tool_calls?: { function?: { name?: string; arguments?: string } }[];
};

function deltaText(delta: Delta | undefined): string {
  if (!delta) return "";
  let text = (delta.content ?? "") + (delta.reasoning_content ?? delta.reasoning ?? "");
  for (const call of delta.tool_calls ?? []) text += (call.function?.name ?? "") + (call.function?.arguments ?? "");
  return text;
}

const choices = (json: Record<string, unknown>) => (Array.isArray(json.choices) ? (json.choices as Choice[]) : []);

export const chatCompletionsSpec: OpenAIRelaySpec = {
  path: "/chat/completions",
  promptCache: true,
  outputText: (json) =>
    choices(json)
      .map((choice) => deltaText(choice.delta ?? choice.message))
      .join(""),
};

export const completionsSpec: OpenAIRelaySpec = {
  path: "/completions",
  outputText: (json) =>
    choices(json)
      .map((choice) => choice.text ?? "")
      .join(""),
};

export const embeddingsSpec: OpenAIRelaySpec = { path: "/embeddings", outputText: () => "" };

export const imageGenerationsSpec: OpenAIRelaySpec = {
  path: "/images/generations",
  outputText: () => "",
  // gpt-image models report tokens as input/output; DALL-E reports none.
  usage: (json) => {
    const usage = json.usage as { input_tokens?: number; output_tokens?: number } | undefined;
    return usage ? { promptTokens: usage.input_tokens ?? 0, completionTokens: usage.output_tokens ?? 0 } : undefined;
  },
};

export const speechSpec: OpenAIRelaySpec = { path: "/audio/speech", outputText: () => "" };

/** Cohere and Jina shapes: Jina reports `usage.total_tokens`, Cohere billed search units. */
export const rerankSpec: OpenAIRelaySpec = {
  path: "/rerank",
  outputText: () => "",
  usage: (json) => {
    const total = (json.usage as { total_tokens?: number } | undefined)?.total_tokens;
    return typeof total === "number" ? { promptTokens: total, completionTokens: 0 } : undefined;
  },
};

export function openAIRelay(spec: OpenAIRelaySpec): Relay {
  return async (request, context): Promise<RelayedResponse> => {
    // Streams always report usage upstream, for metering (hidden again from callers who did not ask).
    const streamOptions = request.body.stream_options as { include_usage?: unknown } | null | undefined;
    const changes: Record<string, unknown> = {};
    if (request.body.model !== context.upstreamModel) changes.model = context.upstreamModel;
    if (request.stream && streamOptions?.include_usage !== true) changes.stream_options = { ...streamOptions, include_usage: true };
    if (spec.promptCache && context.promptCacheKey && request.body.prompt_cache_key === undefined) changes.prompt_cache_key = context.promptCacheKey;
    const response = await postOpenAI(spec.path, relayedBody(request.bytes, request.body, changes, request.layout), context, request.stream);
    if (request.stream) {
      const usage = spec.usage ?? defaultUsage;
      return { status: response.status, headers: SSE_HEADERS, body: passThroughStream(response.body, request.includeUsage, { usage, outputText: spec.outputText }, context.meter) };
    }
    const contentType = String(response.headers["content-type"] ?? "application/json");
    if (!contentType.includes("json")) {
      // Binary or text answers (speech audio) stream through as the upstream sent them.
      context.meter.markFirstToken();
      return { status: response.status, headers: { "content-type": contentType }, body: response.body };
    }
    const bytes = await response.body.bytes();
    context.meter.markFirstToken();
    // A 200 that is not JSON is the upstream's failure (and fails over), never the client's answer.
    const json = parseUpstreamJson(bytes.toString("utf8"));
    meterAnswer(json, spec, context.meter);
    return { status: response.status, headers: { "content-type": "application/json" }, body: bytes };
  };
}

function meterAnswer(json: unknown, spec: OpenAIRelaySpec, meter: UsageMeter): void {
  if (typeof json !== "object" || json === null) return;
  const record = json as Record<string, unknown>;
  const usage = (spec.usage ?? defaultUsage)(record);
  if (usage) meter.recordUsage(usage);
  else meter.recordOutput(spec.outputText(record));
}

const defaultUsage = (json: Record<string, unknown>) => parseOpenAIUsage(json.usage);

/**
 * Multipart uploads (image edits, transcriptions): the form goes upstream part by part
 * as the client sent it, with only the model renamed; the answer comes back as sent
 * (JSON, or the plain text, SRT or VTT a transcription may be asked for).
 */
export function openAIMultipartRelay(spec: OpenAIRelaySpec): Relay {
  return async (request, context): Promise<RelayedResponse> => {
    if (!request.form) throw new GatewayError("invalid_request", "This endpoint takes a multipart/form-data body.", { code: "invalid_content_type" });
    const encoded = request.form.encode({ model: context.upstreamModel });
    const response = await postOpenAIBody(spec.path, encoded.contentType, encoded.body, context);
    const contentType = String(response.headers["content-type"] ?? "application/json");
    context.meter.markFirstToken();
    if (!contentType.includes("json")) return { status: response.status, headers: { "content-type": contentType }, body: response.body };
    const bytes = await response.body.bytes();
    meterAnswer(parseUpstreamJson(bytes.toString("utf8")), spec, context.meter);
    return { status: response.status, headers: { "content-type": "application/json" }, body: bytes };
  };
}

export const imageEditsSpec: OpenAIRelaySpec = { ...imageGenerationsSpec, path: "/images/edits" };

/** Transcriptions report tokens (`gpt-4o-transcribe`) or seconds (`whisper-1`); the text is the output. */
export const transcriptionsSpec: OpenAIRelaySpec = {
  path: "/audio/transcriptions",
  outputText: (json) => (typeof json.text === "string" ? json.text : ""),
  usage: (json) => {
    const usage = json.usage as { type?: string; input_tokens?: number; output_tokens?: number } | undefined;
    return usage?.type === "tokens" ? { promptTokens: usage.input_tokens ?? 0, completionTokens: usage.output_tokens ?? 0 } : undefined;
  },
};
