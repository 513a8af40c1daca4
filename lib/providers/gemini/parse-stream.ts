import { randomUUID } from "node:crypto";
import { GatewayError } from "@/lib/canonical/gateway-error";
import { eventsPerInput, type StreamEvent, type StreamEventBatches } from "@/lib/canonical/stream-event";
import { fromGeminiFinishReason } from "@/lib/formats/gemini/map-finish-reason";
import { parseGeminiUsage } from "@/lib/formats/gemini/render-usage";
import { safeJson } from "@/lib/canonical/json";
import type { SseMessage } from "@/lib/sse/decode-sse";
import { StreamEnd } from "@/lib/sse/stream-ends";
import { malformedStreamError } from "@/lib/sse/stream-errors";
import { generateContentResponseSchema, type GenerateContentResponse, type GroundingMetadata } from "./gemini-api";
import { groundingEvents } from "./grounding";
import { geminiStreamEnds } from "./stream-ends";

/**
 * Gemini chunks -> canonical events. Calls arrive whole and may be spread over chunks,
 * so the tool counter lives across chunks; ids are made up when Gemini sends none;
 * usage is cumulative, so only the last one counts.
 */
export function parseGeminiStream(batches: AsyncIterable<SseMessage[]>): StreamEventBatches {
  const state = newState();
  const end = new StreamEnd(geminiStreamEnds);
  function* step(batch: SseMessage[]): Generator<StreamEvent> {
    for (const message of batch) {
      const json = safeJson(message.data);
      if (json === undefined) throw malformedStreamError();
      if (json !== null && typeof json === "object" && !Array.isArray(json)) end.see(json as Record<string, unknown>);
      const parsed = generateContentResponseSchema.safeParse(json);
      if (!parsed.success) continue;
      yield* chunkEvents(parsed.data, state);
      if (state.failed) return;
    }
  }
  return eventsPerInput(batches, step, {
    stopped: () => state.failed,
    ending: () => {
      if (state.failed) return undefined;
      end.close();
      return [...endEvents(state)];
    },
  });
}

export function* geminiResponseEvents(json: unknown): Generator<StreamEvent> {
  const parsed = generateContentResponseSchema.safeParse(json);
  if (!parsed.success) {
    throw new GatewayError("bad_gateway", "The upstream returned a response the gateway could not read.", { code: "invalid_upstream_response" });
  }
  const state = newState();
  yield* chunkEvents(parsed.data, state);
  yield* endEvents(state);
}

type State = {
  started: boolean;
  toolCount: number;
  finishReason: string | undefined;
  blocked: boolean;
  usage: unknown;
  failed: boolean;
  id: string;
  /** The answer's text so far, and its Google Search grounding (reported at the end). */
  text: string;
  grounding: GroundingMetadata | undefined;
};

const newState = (): State => ({ started: false, toolCount: 0, finishReason: undefined, blocked: false, usage: undefined, failed: false, id: "", text: "", grounding: undefined });

function* chunkEvents(chunk: GenerateContentResponse, state: State): Generator<StreamEvent> {
  if (chunk.error) {
    state.failed = true;
    const status = chunk.error.code ?? 500;
    yield {
      type: "error",
      error: new GatewayError(status === 503 ? "overloaded" : "upstream_error", chunk.error.message ?? "The upstream reported an error.", { status }),
    };
    return;
  }
  if (!state.started) {
    state.started = true;
    state.id = chunk.responseId ?? "";
    yield { type: "message-start", id: chunk.responseId ?? "", model: chunk.modelVersion ?? "", created: Math.floor(Date.now() / 1000) };
  }
  if (chunk.promptFeedback?.blockReason && !chunk.candidates?.length) state.blocked = true;
  const candidate = chunk.candidates?.find((entry) => (entry.index ?? 0) === 0) ?? chunk.candidates?.[0];
  for (const part of candidate?.content?.parts ?? []) {
    if (part.functionCall) {
      const index = state.toolCount++;
      const id = part.functionCall.id ?? `call_${randomUUID().replaceAll("-", "").slice(0, 24)}`;
      yield { type: "tool-call-start", index, id, name: part.functionCall.name };
      yield { type: "tool-call-delta", index, argumentsDelta: JSON.stringify(part.functionCall.args ?? {}) };
    } else if (part.text) {
      if (!part.thought) state.text += part.text;
      yield part.thought ? { type: "reasoning-delta", text: part.text } : { type: "text-delta", text: part.text };
    }
  }
  if (candidate?.finishReason) state.finishReason = candidate.finishReason;
  if (candidate?.groundingMetadata) state.grounding = candidate.groundingMetadata;
  if (chunk.usageMetadata) state.usage = chunk.usageMetadata;
}

function* endEvents(state: State): Generator<StreamEvent> {
  if (state.grounding) yield* groundingEvents(state.grounding, state.text, state.id || "gemini");
  if (state.blocked) yield { type: "finish", reason: "content-filter" };
  else yield { type: "finish", reason: state.finishReason ? fromGeminiFinishReason(state.finishReason, state.toolCount > 0) : "other" };
  const usage = parseGeminiUsage(state.usage);
  if (usage) yield { type: "usage", usage };
}
