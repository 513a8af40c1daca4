import type { Runtime } from "@/lib/runtime";
import { type UsageStats, usageStats } from "./usage-stats";

export type ChannelStats = UsageStats & { channelId: string };

/** Requests, errors, cost, cached share and latency percentiles per channel over the last `hours`. */
export async function channelStats(runtime: Runtime, hours: number, now = Date.now()): Promise<Map<string, ChannelStats>> {
  const stats = await usageStats(runtime, "channel", hours, now);
  return new Map([...stats].map(([id, row]) => [id, { ...row, channelId: id }]));
}
