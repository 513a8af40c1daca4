import type { Usage } from "@/lib/canonical/usage";
import type { ConverseUsage } from "./converse-api";

/** Converse counts input without cache reads and writes (as Anthropic does); the canonical prompt includes them. */
export function parseConverseUsage(usage: ConverseUsage | undefined): Usage | undefined {
  if (!usage) return undefined;
  const cached = usage.cacheReadInputTokens ?? 0;
  const written = usage.cacheWriteInputTokens ?? 0;
  return {
    promptTokens: (usage.inputTokens ?? 0) + cached + written,
    completionTokens: usage.outputTokens ?? 0,
    cachedTokens: cached || undefined,
    cacheWriteTokens: written || undefined,
  };
}
