import { DONE, type StreamEnds } from "@/lib/sse/stream-ends";

/**
 * Chat Completions: a choice's finish reason completes the stream (usage may follow) and
 * `[DONE]` closes it; some servers close without `[DONE]`, which the relay then adds. A
 * chunk carrying `error` fails it.
 */
export const chatCompletionStreamEnds: StreamEnds = {
  mark(event) {
    if (event === DONE) return "complete";
    if (event.error !== undefined && event.error !== null) return "fail";
    const choices = event.choices;
    if (Array.isArray(choices) && choices.some((choice) => typeof (choice as { finish_reason?: unknown })?.finish_reason === "string")) return "complete";
    return undefined;
  },
  closing: { frame: `data: ${DONE}\n\n`, sawMarker: (event) => event === DONE },
};

/** Responses: `response.completed` or `.incomplete` completes the stream; `response.failed` or `error` fails it. */
export const responsesStreamEnds: StreamEnds = {
  mark(event) {
    if (event === DONE) return undefined;
    switch (event.type) {
      case "response.completed":
      case "response.incomplete":
        return "complete";
      case "response.failed":
      case "error":
        return "fail";
      default:
        return undefined;
    }
  },
};
