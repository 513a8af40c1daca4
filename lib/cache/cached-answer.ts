import { z } from "zod";
import type { ChatResponse } from "@/lib/canonical/collect-response";
import type { StreamEvent } from "@/lib/canonical/stream-event";

// A cached answer is the canonical response (lib/canonical/collect-response.ts), so any
// client format renders it, whole or as its own stream events.

const usageSchema = z.object({
  promptTokens: z.number(),
  completionTokens: z.number(),
  cachedTokens: z.number().optional(),
  cacheWriteTokens: z.number().optional(),
  reasoningTokens: z.number().optional(),
});

const webSourceSchema = z.object({ url: z.string(), title: z.string().optional() });

const responseSchema = z.object({
  id: z.string(),
  model: z.string(),
  created: z.number(),
  text: z.string(),
  reasoning: z.string(),
  reasoningSignature: z.string().optional(),
  toolCalls: z.array(z.object({ id: z.string(), name: z.string(), arguments: z.string() })),
  webSearches: z.array(
    z.object({ type: z.literal("web-search"), id: z.string(), status: z.enum(["completed", "failed"]), queries: z.array(z.string()), sources: z.array(webSourceSchema) }),
  ),
  citations: z.array(z.object({ type: z.literal("citation"), url: z.string(), title: z.string().optional(), start: z.number(), end: z.number() })),
  finishReason: z.enum(["stop", "stop-sequence", "length", "tool-calls", "content-filter", "error", "other"]),
  stopSequence: z.string().optional(),
  usage: usageSchema.optional(),
});

const cachedAnswerSchema = z.object({
  version: z.literal(1),
  /** What the answer cost when the upstream produced it: a hit saves that much. */
  costUsd: z.number().min(0),
  /** When it was stored (epoch ms): a request's TTL is also the oldest answer it takes. */
  storedAt: z.number(),
  response: responseSchema,
});

export type CachedAnswer = z.infer<typeof cachedAnswerSchema>;

export function encodeCachedAnswer(response: ChatResponse, costUsd: number, storedAt = Date.now()): string {
  const answer: CachedAnswer = { version: 1, costUsd, storedAt, response };
  return JSON.stringify(answer);
}

/** A stored answer, or undefined for one this version cannot read (then a miss). */
export function decodeCachedAnswer(text: string): CachedAnswer | undefined {
  try {
    const parsed = cachedAnswerSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether an answer is complete enough to keep: it said why it stopped, in words the canonical
 * form names (an upstream's unknown reason reads as "other" and would replay as "stop"), and
 * not as a failure. A null or missing finish reason (a cut answer) is `finishMissing`.
 */
export function isCompleteAnswer(response: ChatResponse): boolean {
  return !response.finishMissing && response.finishReason !== "other" && response.finishReason !== "error";
}

/** The events that fold back into `response`: what a stream replays. */
export function replayEvents(response: ChatResponse): StreamEvent[] {
  const events: StreamEvent[] = [{ type: "message-start", id: response.id, model: response.model, created: response.created }];
  events.push(...response.webSearches);
  if (response.reasoning || response.reasoningSignature) {
    events.push({ type: "reasoning-delta", text: response.reasoning, ...(response.reasoningSignature && { signature: response.reasoningSignature }) });
  }
  if (response.text) events.push({ type: "text-delta", text: response.text });
  // Citations count characters of the text before them: after all of it.
  events.push(...response.citations);
  response.toolCalls.forEach((call, index) => {
    events.push({ type: "tool-call-start", index, id: call.id, name: call.name });
    if (call.arguments) events.push({ type: "tool-call-delta", index, argumentsDelta: call.arguments });
  });
  if (response.usage) events.push({ type: "usage", usage: response.usage });
  events.push({ type: "finish", reason: response.finishReason, ...(response.stopSequence !== undefined && { stopSequence: response.stopSequence }) });
  return events;
}
