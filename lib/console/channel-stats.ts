import type { Runtime } from "@/lib/runtime";
import { histogramPercentile } from "@/lib/usage/usage-hours";

export interface ChannelStats {
  channelId: string;
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

const HOUR = 3600_000;

/**
 * Requests, errors, cost, cached share and latency percentiles (from the rollups'
 * histograms) per channel over the last `hours`.
 */
export async function channelStats(runtime: Runtime, hours: number, now = Date.now()): Promise<Map<string, ChannelStats>> {
  await runtime.logs.flush();
  const groups = await runtime.logStore.usage({ from: new Date(now - hours * HOUR), groupBy: ["channel"], histograms: true });
  const stats = new Map<string, ChannelStats>();
  for (const group of groups) {
    if (!group.channel) continue;
    // Percentiles of answers only: a refusal's latency says nothing about the upstream's speed.
    stats.set(group.channel, {
      channelId: group.channel,
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
