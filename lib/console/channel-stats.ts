import type { Runtime } from "@/lib/runtime";

export interface ChannelStats {
  channelId: string;
  requests: number;
  errors: number;
  costUsd: number;
  tokens: number;
  latencyP50: number | null;
  latencyP95: number | null;
  firstTokenP50: number | null;
}

/** Rows read for the percentiles; enough for a busy day, bounded for a very busy one. */
const PERCENTILE_SAMPLE = 20_000;
const HOUR = 3600_000;

/** Requests, errors, cost and latency percentiles per channel over the last `hours` (all time when null). */
export async function channelStats(runtime: Runtime, hours: number | null, now = Date.now()): Promise<Map<string, ChannelStats>> {
  await runtime.logs.flush();
  const where = { channelId: { not: null }, ...(hours ? { createdAt: { gte: new Date(now - hours * HOUR) } } : {}) };
  const [totals, errors, samples] = await Promise.all([
    runtime.database.requestLog.groupBy({
      by: ["channelId"],
      where,
      _count: { _all: true },
      _sum: { costUsd: true, promptTokens: true, completionTokens: true },
    }),
    runtime.database.requestLog.groupBy({ by: ["channelId"], where: { ...where, status: { gte: 400 } }, _count: { _all: true } }),
    hours
      ? runtime.database.requestLog.findMany({
          where: { ...where, status: { lt: 400 } },
          select: { channelId: true, latencyMs: true, firstTokenMs: true },
          orderBy: { createdAt: "desc" },
          take: PERCENTILE_SAMPLE,
        })
      : Promise.resolve([]),
  ]);
  const errorCounts = new Map(errors.map((row) => [row.channelId, row._count._all]));
  const latencies = new Map<string, { latency: number[]; firstToken: number[] }>();
  for (const sample of samples) {
    const entry = latencies.get(sample.channelId!) ?? { latency: [], firstToken: [] };
    entry.latency.push(sample.latencyMs);
    if (sample.firstTokenMs !== null) entry.firstToken.push(sample.firstTokenMs);
    latencies.set(sample.channelId!, entry);
  }
  return new Map(
    totals.map((row) => {
      const id = row.channelId!;
      const measured = latencies.get(id);
      return [
        id,
        {
          channelId: id,
          requests: row._count._all,
          errors: errorCounts.get(id) ?? 0,
          costUsd: row._sum.costUsd ?? 0,
          tokens: (row._sum.promptTokens ?? 0) + (row._sum.completionTokens ?? 0),
          latencyP50: percentile(measured?.latency, 0.5),
          latencyP95: percentile(measured?.latency, 0.95),
          firstTokenP50: percentile(measured?.firstToken, 0.5),
        },
      ];
    }),
  );
}

/** The nearest-rank percentile; null without samples. */
export function percentile(values: number[] | undefined, fraction: number): number | null {
  if (!values || values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))]!;
}
