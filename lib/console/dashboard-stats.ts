import type { ConsoleSession } from "@/lib/auth/console-session";
import type { Runtime } from "@/lib/runtime";
import { channelPricing } from "./channel-pricing";

export interface DashboardStats {
  /** `priced`: some request in the window had a price (even $0), so the cost reads in dollars, not "—". */
  totals: { requests: number; tokens: number; errors: number; avgLatencyMs: number; costUsd: number; priced: boolean };
  /** One point per hour over the window, oldest first. */
  timeline: { hour: string; requests: number; tokens: number; errors: number; costUsd: number }[];
  /** Models some channel lists (enabled or not), or that a channel served (one deleted since). */
  byModel: ModelRow[];
  /** Names no channel lists and none served: typos, retired models, probes. Kept apart so they never pass for real traffic. */
  unknownModels: ModelRow[];
  byToken: (TokenRow & { name: string })[];
  /** One point per UTC day over the last `days`, oldest first. */
  daily: { day: string; requests: number; costUsd: number }[];
}

export type ModelRow = { model: string; requests: number; errors: number; tokens: number; costUsd: number; priced: boolean };
type TokenRow = { tokenId: string | null; requests: number; tokens: number; costUsd: number; priced: boolean };

/** Request counts and sums for one (model, channel, token): the grain the dashboard's tables add up. */
export interface UsageGroup {
  model: string | null;
  channelId: string | null;
  tokenId: string | null;
  requests: number;
  tokens: number;
  costUsd: number;
}

type Pricing = { isPriced(channelId: string | null, model: string | null): boolean };

/**
 * Adds the groups up by model and by token. A model counts as served when a channel lists
 * it now or a request for it reached a channel (one deleted since still served it); the
 * rest are unknown names that were refused.
 */
export function summarizeUsage(groups: UsageGroup[], listed: Set<string>, pricing: Pricing, errorsByModel: Map<string | null, number>) {
  const models = new Map<string, ModelRow>();
  const tokens = new Map<string | null, TokenRow>();
  const served = new Set(listed);
  let anyPriced = false;
  for (const group of groups) {
    const priced = pricing.isPriced(group.channelId, group.model);
    anyPriced ||= priced;
    if (group.model !== null) {
      if (group.channelId !== null) served.add(group.model);
      const row = models.get(group.model) ?? { model: group.model, requests: 0, errors: errorsByModel.get(group.model) ?? 0, tokens: 0, costUsd: 0, priced: false };
      models.set(group.model, add(row, group, priced));
    }
    const token = tokens.get(group.tokenId) ?? { tokenId: group.tokenId, requests: 0, tokens: 0, costUsd: 0, priced: false };
    tokens.set(group.tokenId, add(token, group, priced));
  }
  const modelRows = [...models.values()].sort((a, b) => b.requests - a.requests);
  return {
    byModel: modelRows.filter((row) => served.has(row.model)),
    unknownModels: modelRows.filter((row) => !served.has(row.model)),
    byToken: [...tokens.values()],
    priced: anyPriced,
  };
}

function add<Row extends { requests: number; tokens: number; costUsd: number; priced: boolean }>(row: Row, group: UsageGroup, priced: boolean): Row {
  return { ...row, requests: row.requests + group.requests, tokens: row.tokens + group.tokens, costUsd: row.costUsd + group.costUsd, priced: row.priced || priced };
}

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
  const [monthly, groups, modelErrors] = await Promise.all([
    runtime.logStore.hourlyStats(daysSince, userId),
    runtime.database.requestLog.groupBy({
      by: ["model", "channelId", "tokenId"],
      where: { createdAt: { gte: since }, ...scope },
      _count: { _all: true },
      _sum: { promptTokens: true, completionTokens: true, costUsd: true },
    }),
    runtime.database.requestLog.groupBy({
      by: ["model"],
      where: { createdAt: { gte: since }, model: { not: null }, status: { gte: 400 }, ...scope },
      _count: { _all: true },
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
  const channels = runtime.channels.all();
  const usage = summarizeUsage(
    groups.map((row) => ({
      model: row.model,
      channelId: row.channelId,
      tokenId: row.tokenId,
      requests: row._count._all,
      tokens: (row._sum.promptTokens ?? 0) + (row._sum.completionTokens ?? 0),
      costUsd: row._sum.costUsd ?? 0,
    })),
    new Set(channels.flatMap((channel) => channel.models)),
    channelPricing(channels),
    new Map(modelErrors.map((row) => [row.model, row._count._all])),
  );
  const tokenIds = usage.byToken.flatMap((row) => (row.tokenId ? [row.tokenId] : []));
  const tokenNames = new Map((await runtime.database.token.findMany({ where: { id: { in: tokenIds } }, select: { id: true, name: true } })).map((token) => [token.id, token.name]));
  const requests = hourly.reduce((sum, row) => sum + row.requests, 0);
  return {
    totals: {
      requests,
      tokens: hourly.reduce((sum, row) => sum + row.tokens, 0),
      errors: hourly.reduce((sum, row) => sum + row.errors, 0),
      avgLatencyMs: requests ? Math.round(hourly.reduce((sum, row) => sum + row.latencyMs, 0) / requests) : 0,
      costUsd: hourly.reduce((sum, row) => sum + row.costUsd, 0),
      priced: usage.priced,
    },
    timeline,
    byModel: usage.byModel,
    unknownModels: usage.unknownModels,
    byToken: usage.byToken
      .map((row) => ({ ...row, name: row.tokenId ? (tokenNames.get(row.tokenId) ?? "deleted token") : "console sessions" }))
      .sort((a, b) => b.costUsd - a.costUsd || b.requests - a.requests)
      .slice(0, 10),
    daily,
  };
}
