import type { Usage } from "@/lib/canonical/usage";

/** Anthropic counts input without cache reads and writes; the canonical prompt includes them. */
export function renderAnthropicUsage(usage: Usage | undefined) {
  const cached = usage?.cachedTokens ?? 0;
  const written = usage?.cacheWriteTokens ?? 0;
  return {
    input_tokens: Math.max(0, (usage?.promptTokens ?? 0) - cached - written),
    cache_creation_input_tokens: written,
    cache_read_input_tokens: cached,
    output_tokens: usage?.completionTokens ?? 0,
  };
}

export function parseAnthropicUsage(raw: unknown, fallback?: Usage): Usage | undefined {
  if (typeof raw !== "object" || raw === null) return fallback;
  const usage = raw as Record<string, unknown>;
  const number = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : undefined);
  const cacheRead = number(usage.cache_read_input_tokens) ?? fallback?.cachedTokens ?? 0;
  const cacheWrite = number(usage.cache_creation_input_tokens) ?? fallback?.cacheWriteTokens ?? 0;
  const input = number(usage.input_tokens);
  const details = (usage.output_tokens_details ?? {}) as Record<string, unknown>;
  return {
    promptTokens: input === undefined ? (fallback?.promptTokens ?? 0) : input + cacheRead + cacheWrite,
    completionTokens: number(usage.output_tokens) ?? fallback?.completionTokens ?? 0,
    cachedTokens: cacheRead || undefined,
    cacheWriteTokens: cacheWrite || undefined,
    reasoningTokens: number(details.thinking_tokens),
  };
}
