import type { ConsoleSession } from "@/lib/auth/console-session";
import type { Runtime } from "@/lib/runtime";

export interface DashboardStats {
  totals: { requests: number; tokens: number; errors: number; avgLatencyMs: number };
  /** One point per hour over the window, oldest first. */
  timeline: { hour: string; requests: number; tokens: number; errors: number }[];
  byModel: { model: string; requests: number; tokens: number }[];
}

const HOUR = 3600_000;

/** Requests, tokens and errors over the last `hours`, by hour and by model. */
export async function dashboardStats(runtime: Runtime, user: ConsoleSession, hours = 24, now = Date.now()): Promise<DashboardStats> {
  await runtime.logs.flush();
  const since = new Date(Math.floor((now - hours * HOUR) / HOUR) * HOUR + HOUR);
  const rows = await runtime.database.requestLog.findMany({
    where: { createdAt: { gte: since }, ...(user.role === "admin" ? {} : { userId: user.userId }) },
    select: { createdAt: true, model: true, status: true, promptTokens: true, completionTokens: true, latencyMs: true },
  });
  const timeline = Array.from({ length: hours }, (_, index) => ({
    hour: new Date(since.getTime() + index * HOUR).toISOString(),
    requests: 0,
    tokens: 0,
    errors: 0,
  }));
  const models = new Map<string, { requests: number; tokens: number }>();
  let latency = 0;
  for (const row of rows) {
    const tokens = row.promptTokens + row.completionTokens;
    const slot = timeline[Math.floor((row.createdAt.getTime() - since.getTime()) / HOUR)];
    if (slot) {
      slot.requests += 1;
      slot.tokens += tokens;
      if (row.status >= 400) slot.errors += 1;
    }
    latency += row.latencyMs;
    if (row.model) {
      const entry = models.get(row.model) ?? { requests: 0, tokens: 0 };
      entry.requests += 1;
      entry.tokens += tokens;
      models.set(row.model, entry);
    }
  }
  return {
    totals: {
      requests: rows.length,
      tokens: timeline.reduce((sum, slot) => sum + slot.tokens, 0),
      errors: timeline.reduce((sum, slot) => sum + slot.errors, 0),
      avgLatencyMs: rows.length ? Math.round(latency / rows.length) : 0,
    },
    timeline,
    byModel: [...models].map(([model, value]) => ({ model, ...value })).sort((a, b) => b.requests - a.requests),
  };
}
