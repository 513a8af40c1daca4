import type { ConsoleSession } from "@/lib/auth/console-session";
import type { Runtime } from "@/lib/runtime";

export interface DashboardStats {
  totals: { requests: number; tokens: number; errors: number; avgLatencyMs: number; costUsd: number };
  /** One point per hour over the window, oldest first. */
  timeline: { hour: string; requests: number; tokens: number; errors: number; costUsd: number }[];
  byModel: { model: string; requests: number; tokens: number; costUsd: number }[];
}

const HOUR = 3600_000;

/** Requests, tokens, errors and cost over the last `hours`, by hour and by model, aggregated in SQL. */
export async function dashboardStats(runtime: Runtime, user: ConsoleSession, hours = 24, now = Date.now()): Promise<DashboardStats> {
  await runtime.logs.flush();
  const since = new Date(Math.floor((now - hours * HOUR) / HOUR) * HOUR + HOUR);
  const userId = user.role === "admin" ? null : user.userId;
  const [hourly, models] = await Promise.all([
    runtime.logStore.hourlyStats(since, userId),
    runtime.database.requestLog.groupBy({
      by: ["model"],
      where: { createdAt: { gte: since }, model: { not: null }, ...(userId ? { userId } : {}) },
      _count: { _all: true },
      _sum: { promptTokens: true, completionTokens: true, costUsd: true },
    }),
  ]);
  const byHour = new Map(hourly.map((row) => [row.hour, row]));
  const timeline = Array.from({ length: hours }, (_, index) => {
    const hour = new Date(since.getTime() + index * HOUR).toISOString();
    const row = byHour.get(hour);
    return { hour, requests: row?.requests ?? 0, tokens: row?.tokens ?? 0, errors: row?.errors ?? 0, costUsd: row?.costUsd ?? 0 };
  });
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
    byModel: models
      .map((row) => ({
        model: row.model!,
        requests: row._count._all,
        tokens: (row._sum.promptTokens ?? 0) + (row._sum.completionTokens ?? 0),
        costUsd: row._sum.costUsd ?? 0,
      }))
      .sort((a, b) => b.requests - a.requests),
  };
}
