import type { Runtime } from "@/lib/runtime/runtime-types";

const DAY = 86_400_000;

/**
 * The share of input tokens the upstreams served from their prompt cache, per token or per
 * channel, over the last `days`: how warm session affinity keeps the caches.
 */
export async function cachedInputShare(runtime: Runtime, by: "token" | "channel", days = 30, now = Date.now()): Promise<Map<string, number>> {
  await runtime.logs.flush();
  const groups = await runtime.logStore.usage({ from: new Date(now - days * DAY), groupBy: [by] });
  const shares = new Map<string, number>();
  for (const group of groups) {
    const id = group[by];
    if (id && group.promptTokens > 0) shares.set(id, Math.min(1, group.cachedTokens / group.promptTokens));
  }
  return shares;
}
