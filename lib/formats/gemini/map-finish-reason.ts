import type { FinishReason } from "@/lib/canonical/finish-reason";

export const toGeminiFinishReason: Record<FinishReason, string> = {
  stop: "STOP",
  "stop-sequence": "STOP",
  length: "MAX_TOKENS",
  "tool-calls": "STOP",
  "content-filter": "SAFETY",
  error: "OTHER",
  other: "OTHER",
};

const FILTERED = new Set(["SAFETY", "RECITATION", "LANGUAGE", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION"]);

export function fromGeminiFinishReason(reason: string, calledTools: boolean): FinishReason {
  if (reason === "STOP") return calledTools ? "tool-calls" : "stop";
  if (reason === "MAX_TOKENS") return "length";
  if (FILTERED.has(reason)) return "content-filter";
  if (reason === "MALFORMED_FUNCTION_CALL" || reason === "UNEXPECTED_TOOL_CALL") return "stop";
  return "other";
}
