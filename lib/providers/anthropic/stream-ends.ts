import { DONE, type StreamEnds } from "@/lib/sse/stream-ends";

/**
 * Messages: the `message_delta` that carries the stop reason completes the stream (every
 * block is closed by then) and `message_stop` closes it; a stream cut between the two is
 * complete, and the relay adds the `message_stop` clients wait for. An `error` event fails it.
 */
export const anthropicStreamEnds: StreamEnds = {
  mark(event) {
    if (event === DONE) return undefined;
    switch (event.type) {
      case "message_delta":
      case "message_stop":
        return "complete";
      case "error":
        return "fail";
      default:
        return undefined;
    }
  },
  closing: {
    frame: `event: message_stop\ndata: {"type":"message_stop"}\n\n`,
    sawMarker: (event) => event !== DONE && event.type === "message_stop",
  },
};
