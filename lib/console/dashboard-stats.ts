import type { ConsoleSession } from "@/lib/auth/console-session";
import type { Runtime } from "@/lib/runtime";
import { channelPricing } from "./channel-pricing";

export interface DashboardStats {
  /** What one timeline point spans: an hour for ranges up to a week, else a UTC day. */
  unit: "hour" | "day";
  /** `priced`: some request in the window had a price (even $0), so the cost reads in dollars, not "—". */
  totals: { requests: number; tokens: number; errors: number; avgLatencyMs: number; costUsd: number; priced: boolean };
  /** One point per `unit` over the range, oldest first; `hour` is the point's start (ISO). */
  timeline: { hour: string; requests: number; tokens: number; errors: number; costUsd: number }[];
  /** Models some channel lists (enabled or not), or that a channel served (one deleted since). */
  byModel: ModelRow[];
  /** Names no channel lists and none served: typos, retired models, probes. Kept apart so they never pass for real traffic. */
  unknownModels: ModelRow[];
  byToken: (TokenRow & { name: string })[];
  /** One point per UTC day over the range, and at least the 30 days up to its end; oldest first. */
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

const HOUR = 3600_000;
const DAY = 24 * HOUR;
/** The daily cost chart covers at least this many days, ending with the range. */
const DAILY_DAYS = 30;
/** Ranges up to this long are charted by the hour, longer ones by the day. */
const HOURLY_UP_TO = 7 * DAY;

/** A span of whole hours the dashboard shows: [from, to). */
export interface DashboardRange {
  from: Date;
  to: Date;
}

/** The last `hours` up to the current hour's end. */
export function lastHours(hours: number, now = Date.now()): DashboardRange {
  const to = Math.ceil((now + 1) / HOUR) * HOUR;
  return { from: new Date(to - hours * HOUR), to: new Date(to) };
}

/**
 * Requests, tokens, errors and cost over a range, by hour (or day) and by model and token,
 * summed from the hourly rollups: as fast over a year of traffic as over an empty log.
 */
export async function dashboardStats(
  runtime: Runtime,
  user: ConsoleSession,
  range: DashboardRange = lastHours(24),
  /** One team's traffic (its tokens'), for a member of it or an admin. */
  team?: { tokenIds: string[] },
): Promise<DashboardStats> {
  await runtime.logs.flush();
  const scope = team ? { tokenIds: team.tokenIds } : user.role === "admin" ? {} : { userId: user.userId };
  const dailyFrom = new Date(Math.min(Math.floor(range.from.getTime() / DAY) * DAY, Math.floor((range.to.getTime() - 1) / DAY) * DAY - (DAILY_DAYS - 1) * DAY));
  const unit = range.to.getTime() - range.from.getTime() <= HOURLY_UP_TO ? "hour" : "day";
  const [points, days, groups] = await Promise.all([
    runtime.logStore.usage({ from: range.from, to: range.to, groupBy: [unit], ...scope }),
    runtime.logStore.usage({ from: dailyFrom, to: range.to, groupBy: ["day"], ...scope }),
    runtime.logStore.usage({ from: range.from, to: range.to, groupBy: ["model", "channel", "token"], ...scope }),
  ]);
  const step = unit === "hour" ? HOUR : DAY;
  const first = Math.floor(range.from.getTime() / step) * step;
  const byPoint = new Map(points.map((row) => [unit === "hour" ? row.hour! : row.day!, row]));
  const timeline = Array.from({ length: Math.max(0, Math.ceil((range.to.getTime() - first) / step)) }, (_, index) => {
    const at = new Date(first + index * step).toISOString();
    const row = byPoint.get(unit === "hour" ? at : at.slice(0, 10));
    return { hour: at, requests: row?.requests ?? 0, tokens: row ? row.promptTokens + row.completionTokens : 0, errors: row?.failed ?? 0, costUsd: row?.costUsd ?? 0 };
  });
  const byDay = new Map(days.map((row) => [row.day!, row]));
  const daily = Array.from({ length: Math.ceil((range.to.getTime() - dailyFrom.getTime()) / DAY) }, (_, index) => {
    const day = new Date(dailyFrom.getTime() + index * DAY).toISOString().slice(0, 10);
    return { day, requests: byDay.get(day)?.requests ?? 0, costUsd: byDay.get(day)?.costUsd ?? 0 };
  });
  const channels = runtime.channels.all();
  const errorsByModel = new Map<string | null, number>();
  for (const group of groups) errorsByModel.set(group.model ?? null, (errorsByModel.get(group.model ?? null) ?? 0) + group.errors);
  const usage = summarizeUsage(
    groups.map((row) => ({
      model: row.model ?? null,
      channelId: row.channel ?? null,
      tokenId: row.token ?? null,
      requests: row.requests,
      tokens: row.promptTokens + row.completionTokens,
      costUsd: row.costUsd,
    })),
    new Set(channels.flatMap((channel) => channel.models)),
    channelPricing(channels),
    errorsByModel,
  );
  const tokenIds = usage.byToken.flatMap((row) => (row.tokenId ? [row.tokenId] : []));
  const tokenNames = new Map((await runtime.database.token.findMany({ where: { id: { in: tokenIds } }, select: { id: true, name: true } })).map((token) => [token.id, token.name]));
  const sum = (field: "requests" | "failed" | "costUsd" | "latencyMsSum") => points.reduce((total, row) => total + row[field], 0);
  const requests = sum("requests");
  return {
    unit,
    totals: {
      requests,
      tokens: points.reduce((total, row) => total + row.promptTokens + row.completionTokens, 0),
      errors: sum("failed"),
      avgLatencyMs: requests ? Math.round(sum("latencyMsSum") / requests) : 0,
      costUsd: sum("costUsd"),
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
