import { GatewayError } from "@/lib/canonical/gateway-error";
import { safeJson } from "@/lib/canonical/json";
import { eventsPerInput, type StreamEvent, type StreamEventBatches } from "@/lib/canonical/stream-event";
import { fromOpenAIFinishReason } from "@/lib/formats/openai/map-finish-reason";
import { parseOpenAIUsage } from "@/lib/formats/openai/render-usage";
import type { SseMessage } from "@/lib/sse/decode-sse";
import { DONE, StreamEnd } from "@/lib/sse/stream-ends";
import { malformedStreamError } from "@/lib/sse/stream-errors";
import { chatCompletionChunkSchema, chatCompletionResponseSchema, type ChatCompletionChunk } from "./openai-api";
import { chatCompletionStreamEnds } from "./stream-ends";

const isOptionalString = (value: unknown) => value === undefined || value === null || typeof value === "string";
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The common chunk (text deltas, a finish reason, usage) checked by hand: what the schema
 * would accept unchanged, at a fraction of its cost per event. Anything else (tool calls,
 * odd types) goes through the schema.
 */
export function isPlainChunk(json: unknown): json is ChatCompletionChunk {
  if (!isObject(json) || !isOptionalString(json.id) || !isOptionalString(json.model)) return false;
  if (json.created !== undefined && json.created !== null && !Number.isFinite(json.created)) return false;
  const choices = json.choices;
  if (choices === undefined || choices === null) return true;
  if (!Array.isArray(choices)) return false;
  for (const choice of choices) {
    if (!isObject(choice) || !isOptionalString(choice.finish_reason)) return false;
    if (choice.index !== undefined && choice.index !== null && !Number.isSafeInteger(choice.index)) return false;
    const delta = choice.delta;
    if (delta === undefined || delta === null) continue;
    if (!isObject(delta) || (delta.tool_calls !== undefined && delta.tool_calls !== null)) return false;
    if (!isOptionalString(delta.role) || !isOptionalString(delta.content) || !isOptionalString(delta.refusal)) return false;
    if (!isOptionalString(delta.reasoning_content) || !isOptionalString(delta.reasoning)) return false;
  }
  return true;
}

/** OpenAI Chat Completions SSE -> canonical events, a batch per upstream read. Only choice 0 is followed. */
export function parseOpenAIStream(batches: AsyncIterable<SseMessage[]>): StreamEventBatches {
  let started = false;
  // Upstream tool-call index -> our dense index, in order of first appearance.
  const toolIndexes = new Map<number, number>();
  const end = new StreamEnd(chatCompletionStreamEnds);
  // After the end marker the stream is read to its close, not torn down: ending it early
  // would abort the upstream body, which costs an error object and its stack per stream.
  let ended = false;
  function* step(batch: SseMessage[]): Generator<StreamEvent> {
    for (const message of batch) {
      if (ended) continue;
      if (message.data === DONE) {
        end.see(DONE);
        ended = true;
        continue;
      }
      const json = safeJson(message.data);
      if (json === undefined) throw malformedStreamError();
      if (!isObject(json)) continue;
      if (end.see(json) === "fail") {
        const error = json.error as { message?: string; type?: string } | string;
        const text = typeof error === "string" ? error : (error?.message ?? "The upstream reported an error mid-stream.");
        yield {
          type: "error",
          error: new GatewayError("upstream_error", text, { status: 500, upstreamType: typeof error === "object" ? error?.type : undefined, upstreamFormat: "openai" }),
        };
        return;
      }
      let chunk: ChatCompletionChunk;
      if (isPlainChunk(json)) chunk = json;
      else {
        const parsed = chatCompletionChunkSchema.safeParse(json);
        if (!parsed.success) continue;
        chunk = parsed.data;
      }
      // Azure opens with a chunk of its own (no id, no choices, the prompt's filter results):
      // the message starts with the first chunk that is the model's.
      if (!started && (chunk.id || chunk.choices?.length)) {
        started = true;
        yield {
          type: "message-start",
          id: chunk.id ?? "",
          model: chunk.model ?? "",
          created: chunk.created ?? Math.floor(Date.now() / 1000),
        };
      }
      const choice = chunk.choices?.find((candidate) => (candidate.index ?? 0) === 0);
      const delta = choice?.delta;
      if (delta) {
        const reasoning = delta.reasoning_content ?? delta.reasoning;
        if (reasoning) yield { type: "reasoning-delta", text: reasoning };
        if (delta.content) yield { type: "text-delta", text: delta.content };
        if (delta.refusal) yield { type: "text-delta", text: delta.refusal };
        for (const call of delta.tool_calls ?? []) {
          const upstreamIndex = call.index ?? 0;
          let index = toolIndexes.get(upstreamIndex);
          if (index === undefined) {
            index = toolIndexes.size;
            toolIndexes.set(upstreamIndex, index);
            yield {
              type: "tool-call-start",
              index,
              id: call.id || `call_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`,
              name: call.function?.name ?? "",
            };
          }
          if (call.function?.arguments) yield { type: "tool-call-delta", index, argumentsDelta: call.function.arguments };
        }
      }
      if (choice?.finish_reason) {
        yield { type: "finish", reason: fromOpenAIFinishReason[choice.finish_reason] ?? "other" };
      }
      const usage = parseOpenAIUsage(chunk.usage);
      if (usage) yield { type: "usage", usage };
    }
  }
  return eventsPerInput(batches, step, {
    stopped: () => end.failed,
    ending: () => {
      end.close();
      return undefined;
    },
  });
}

/** A non-streaming OpenAI response as the same canonical event sequence. */
export function* openAIResponseEvents(json: unknown): Generator<StreamEvent> {
  const parsed = chatCompletionResponseSchema.safeParse(json);
  if (!parsed.success) {
    throw new GatewayError("bad_gateway", "The upstream returned a response the gateway could not read.", {
      code: "invalid_upstream_response",
    });
  }
  const response = parsed.data;
  yield {
    type: "message-start",
    id: response.id ?? "",
    model: response.model ?? "",
    created: response.created ?? Math.floor(Date.now() / 1000),
  };
  const choice = response.choices[0];
  if (choice) {
    const reasoning = choice.message.reasoning_content ?? choice.message.reasoning;
    if (reasoning) yield { type: "reasoning-delta", text: reasoning };
    const text = choice.message.content ?? choice.message.refusal;
    if (text) yield { type: "text-delta", text };
    for (const [index, call] of (choice.message.tool_calls ?? []).entries()) {
      yield { type: "tool-call-start", index, id: call.id, name: call.function.name };
      if (call.function.arguments) yield { type: "tool-call-delta", index, argumentsDelta: call.function.arguments };
    }
    // A null finish_reason says nothing: no finish event (readers take "stop"; the cache keeps none).
    if (choice.finish_reason) yield { type: "finish", reason: fromOpenAIFinishReason[choice.finish_reason] ?? "other" };
  }
  const usage = parseOpenAIUsage(response.usage);
  if (usage) yield { type: "usage", usage };
}
