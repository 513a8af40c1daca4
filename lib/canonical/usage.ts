/** Token usage in one vendor-neutral shape. Subsets are included in their totals. */
export interface Usage {
  promptTokens: number;
  completionTokens: number;
  /** Prompt tokens served from a cache (a subset of promptTokens). */
  cachedTokens?: number;
  /** Prompt tokens written to a cache (Anthropic cache_creation). */
  cacheWriteTokens?: number;
  /** Completion tokens spent on reasoning (a subset of completionTokens). */
  reasoningTokens?: number;
}

export const emptyUsage = (): Usage => ({ promptTokens: 0, completionTokens: 0 });
