import type { FinishReason } from "@/lib/canonical/finish-reason";

/** Converse's `stopReason` in the canonical vocabulary; unknown reasons are "other". */
export const fromConverseStopReason: Record<string, FinishReason> = {
  end_turn: "stop",
  stop_sequence: "stop-sequence",
  max_tokens: "length",
  model_context_window_exceeded: "length",
  tool_use: "tool-calls",
  guardrail_intervened: "content-filter",
  content_filtered: "content-filter",
  malformed_model_output: "error",
  malformed_tool_use: "error",
};
