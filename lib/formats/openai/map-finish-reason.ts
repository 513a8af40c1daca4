import type { FinishReason } from "@/lib/canonical/finish-reason";

export type OpenAIFinishReason = "stop" | "length" | "tool_calls" | "content_filter" | "function_call";

export const toOpenAIFinishReason: Record<FinishReason, OpenAIFinishReason> = {
  stop: "stop",
  "stop-sequence": "stop",
  length: "length",
  "tool-calls": "tool_calls",
  "content-filter": "content_filter",
  error: "stop",
  other: "stop",
};

export const fromOpenAIFinishReason: Record<string, FinishReason> = {
  stop: "stop",
  length: "length",
  tool_calls: "tool-calls",
  function_call: "tool-calls",
  content_filter: "content-filter",
};
