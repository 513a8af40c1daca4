import type { Runtime } from "@/lib/runtime";
import { histogramPercentile } from "@/lib/usage/usage-hours";

/** One channel's, model's, user's or token's use over a span, as the console's pages show it. */
export interface UsageStats {
  id: string;
  requests: number;
  errors: number;
  costUsd: number;
  tokens: number;
  /** Cached input tokens over input tokens; null without input. */
  cachedShare: number | null;
  latencyP50: number | null;
  latencyP95: number | null;
  firstTokenP50: number | null;
}

const DAY = 86_400_000;

/** A span of usage: from `from` up to `to` (exclusive; none: now). */
export interface UsageSpan {
  from: Date;
  to?: Date;
}

/** The last `days` up to now. */
export function lastDays(days: number, now = Date.now()): UsageSpan {
  return { from: new Date(now - days * DAY) };
}

/**
 * Requests, errors, cost, cached share and latency percentiles (from the rollups'
 * histograms, answers only) per channel, model, user or token over a span.
 */
export async function usageStats(runtime: Runtime, by: "channel" | "model" | "user" | "token", span: UsageSpan): Promise<Map<string, UsageStats>> {
  await runtime.logs.flush();
  const groups = await runtime.logStore.usage({ ...span, groupBy: [by], histograms: true });
  const stats = new Map<string, UsageStats>();
  for (const group of groups) {
    const id = group[by];
    if (!id) continue;
    stats.set(id, {
      id,
      requests: group.requests,
      errors: group.errors,
      costUsd: group.costUsd,
      tokens: group.promptTokens + group.completionTokens,
      cachedShare: group.promptTokens > 0 ? Math.min(1, group.cachedTokens / group.promptTokens) : null,
      latencyP50: histogramPercentile(group.latency!, 0.5),
      latencyP95: histogramPercentile(group.latency!, 0.95),
      firstTokenP50: histogramPercentile(group.firstToken!, 0.5),
    });
  }
  return stats;
}
