import type { ConsoleSession } from "@/lib/auth/console-session";
import type { Runtime } from "@/lib/runtime";

export interface DashboardStats {
  totals: { requests: number; tokens: number; errors: number; avgLatencyMs: number; costUsd: number };
  /** One point per hour over the window, oldest first. */
  timeline: { hour: string; requests: number; tokens: number; errors: number; costUsd: number }[];
  /** Models some channel lists (enabled or not). */
  byModel: ModelRow[];
  /** Names no channel lists: typos, retired models, probes. Kept apart so they never pass for real traffic. */
  unknownModels: ModelRow[];
  byToken: { tokenId: string | null; name: string; requests: number; tokens: number; costUsd: number }[];
  /** One point per UTC day over the last `days`, oldest first. */
  daily: { day: string; requests: number; costUsd: number }[];
}

type ModelRow = { model: string; requests: number; errors: number; tokens: number; costUsd: number };

const DAY = 24 * 3600_000;
const DAYS = 30;

const HOUR = 3600_000;

/** Requests, tokens, errors and cost over the last `hours`, by hour and by model, aggregated in SQL. */
export async function dashboardStats(runtime: Runtime, user: ConsoleSession, hours = 24, now = Date.now()): Promise<DashboardStats> {
  await runtime.logs.flush();
  const since = new Date(Math.floor((now - hours * HOUR) / HOUR) * HOUR + HOUR);
  const userId = user.role === "admin" ? null : user.userId;
  const daysSince = new Date(Math.floor(now / DAY) * DAY - (DAYS - 1) * DAY);
  const scope = userId ? { userId } : {};
  const [monthly, models, modelErrors, tokens] = await Promise.all([
    runtime.logStore.hourlyStats(daysSince, userId),
    runtime.database.requestLog.groupBy({
      by: ["model"],
      where: { createdAt: { gte: since }, model: { not: null }, ...scope },
      _count: { _all: true },
      _sum: { promptTokens: true, completionTokens: true, costUsd: true },
    }),
    runtime.database.requestLog.groupBy({
      by: ["model"],
      where: { createdAt: { gte: since }, model: { not: null }, status: { gte: 400 }, ...scope },
      _count: { _all: true },
    }),
    runtime.database.requestLog.groupBy({
      by: ["tokenId"],
      where: { createdAt: { gte: since }, ...scope },
      _count: { _all: true },
      _sum: { promptTokens: true, completionTokens: true, costUsd: true },
    }),
  ]);
  // The last `hours` are the tail of the 30 days' hourly rows (ISO hours compare as text).
  const hourly = monthly.filter((row) => row.hour >= since.toISOString());
  const byHour = new Map(hourly.map((row) => [row.hour, row]));
  const timeline = Array.from({ length: hours }, (_, index) => {
    const hour = new Date(since.getTime() + index * HOUR).toISOString();
    const row = byHour.get(hour);
    return { hour, requests: row?.requests ?? 0, tokens: row?.tokens ?? 0, errors: row?.errors ?? 0, costUsd: row?.costUsd ?? 0 };
  });
  const daily = Array.from({ length: DAYS }, (_, index) => ({ day: new Date(daysSince.getTime() + index * DAY).toISOString().slice(0, 10), requests: 0, costUsd: 0 }));
  for (const row of monthly) {
    const point = daily[Math.floor((Date.parse(row.hour) - daysSince.getTime()) / DAY)];
    if (!point) continue;
    point.requests += row.requests;
    point.costUsd += row.costUsd;
  }
  const served = new Set(runtime.channels.all().flatMap((channel) => channel.models));
  const errorsByModel = new Map(modelErrors.map((row) => [row.model, row._count._all]));
  const modelRows = models
    .map((row) => ({
      model: row.model!,
      requests: row._count._all,
      errors: errorsByModel.get(row.model) ?? 0,
      tokens: (row._sum.promptTokens ?? 0) + (row._sum.completionTokens ?? 0),
      costUsd: row._sum.costUsd ?? 0,
    }))
    .sort((a, b) => b.requests - a.requests);
  const tokenNames = new Map(
    (await runtime.database.token.findMany({ where: { id: { in: tokens.flatMap((row) => (row.tokenId ? [row.tokenId] : [])) } }, select: { id: true, name: true } })).map(
      (token) => [token.id, token.name],
    ),
  );
  const requests = hourly.reduce((sum, row) => sum + row.requests, 0);
  return {
    totals: {
      requests,
      tokens: hourly.reduce((sum, row) => sum + row.tokens, 0),
      errors: hourly.reduce((sum, row) => sum + row.errors, 0),
      avgLatencyMs: requests ? Math.round(hourly.reduce((sum, row) => sum + row.latencyMs, 0) / requests) : 0,
      costUsd: hourly.reduce((sum, row) => sum + row.costUsd, 0),
    },
    timeline,
    byModel: modelRows.filter((row) => served.has(row.model)),
    unknownModels: modelRows.filter((row) => !served.has(row.model)),
    byToken: tokens
      .map((row) => ({
        tokenId: row.tokenId,
        name: row.tokenId ? (tokenNames.get(row.tokenId) ?? "deleted token") : "console sessions",
        requests: row._count._all,
        tokens: (row._sum.promptTokens ?? 0) + (row._sum.completionTokens ?? 0),
        costUsd: row._sum.costUsd ?? 0,
      }))
      .sort((a, b) => b.costUsd - a.costUsd || b.requests - a.requests)
      .slice(0, 10),
    daily,
  };
}
