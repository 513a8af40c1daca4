import type { Runtime } from "@/lib/runtime";
import { type UsageSpan, type UsageStats, usageStats } from "./usage-stats";

export type ChannelStats = UsageStats & { channelId: string };

/** Requests, errors, cost, cached share and latency percentiles per channel over a span. */
export async function channelStats(runtime: Runtime, span: UsageSpan): Promise<Map<string, ChannelStats>> {
  const stats = await usageStats(runtime, "channel", span);
  return new Map([...stats].map(([id, row]) => [id, { ...row, channelId: id }]));
}
