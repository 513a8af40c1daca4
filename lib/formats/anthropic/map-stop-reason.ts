import type { FinishReason } from "@/lib/canonical/finish-reason";

export type AnthropicStopReason = "end_turn" | "max_tokens" | "stop_sequence" | "tool_use" | "pause_turn" | "refusal";

export const toAnthropicStopReason: Record<FinishReason, AnthropicStopReason> = {
  stop: "end_turn",
  "stop-sequence": "stop_sequence",
  length: "max_tokens",
  "tool-calls": "tool_use",
  "content-filter": "refusal",
  error: "end_turn",
  other: "end_turn",
};

export const fromAnthropicStopReason: Record<string, FinishReason> = {
  end_turn: "stop",
  stop_sequence: "stop-sequence",
  max_tokens: "length",
  model_context_window_exceeded: "length",
  tool_use: "tool-calls",
  refusal: "content-filter",
  pause_turn: "stop",
};
