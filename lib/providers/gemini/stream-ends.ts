import { DONE, type StreamEnds } from "@/lib/sse/stream-ends";

/**
 * streamGenerateContent has no end marker: the chunk whose candidate carries a finish
 * reason completes the stream, as does a prompt blocked before any candidate. A chunk
 * carrying `error` fails it.
 */
export const geminiStreamEnds: StreamEnds = {
  mark(event) {
    if (event === DONE) return undefined;
    if (event.error !== undefined && event.error !== null) return "fail";
    const feedback = event.promptFeedback as { blockReason?: unknown } | undefined;
    if (feedback?.blockReason) return "complete";
    const candidates = event.candidates;
    if (Array.isArray(candidates) && candidates.some((candidate) => Boolean((candidate as { finishReason?: unknown })?.finishReason))) return "complete";
    return undefined;
  },
};
