import type { Runtime } from "@/lib/runtime/runtime-types";

/**
 * The share of input tokens the upstreams served from their prompt cache, per token or per
 * channel, over every logged request: how warm session affinity keeps the caches.
 */
export async function cachedInputShare(runtime: Runtime, by: "tokenId" | "channelId"): Promise<Map<string, number>> {
  await runtime.logs.flush();
  const rows = await runtime.database.requestLog.groupBy({
    by: [by],
    where: { [by]: { not: null }, promptTokens: { gt: 0 } },
    _sum: { promptTokens: true, cachedTokens: true },
  });
  const shares = new Map<string, number>();
  for (const row of rows) {
    const id = row[by];
    const prompt = row._sum.promptTokens ?? 0;
    if (id && prompt > 0) shares.set(id, Math.min(1, (row._sum.cachedTokens ?? 0) / prompt));
  }
  return shares;
}
