import type { RequestLogEntry } from "./request-log-entry";

// Usage rolled up by the hour as the log is written: one row per (hour, token, user, served
// model, channel, status class) with the sums every usage view and counter needs, so a page
// reads a few thousand totals instead of millions of log rows. Written in the log batch's own
// transaction (lib/db/*-request-log-store.ts); old rows are rolled up once by a backfill.

/**
 * Upper bounds (ms, exclusive) of the latency and time-to-first-token histogram buckets;
 * the last bucket is open. Percentiles are read from these (usagePercentile).
 */
export const LATENCY_BOUNDS_MS = [100, 200, 300, 500, 750, 1000, 1500, 2000, 3000, 5000, 7500, 10_000, 20_000, 40_000, 80_000] as const;
export const HISTOGRAM_BUCKETS = LATENCY_BOUNDS_MS.length + 1;

/** The key of one rollup row; "" stands for none (no token, no model, no channel). */
export const USAGE_HOUR_KEYS = ["hour", "tokenId", "userId", "model", "channelId", "statusClass"] as const;

/** The summed columns, in the order they are stored and bound. */
export const USAGE_HOUR_SUMS = [
  "requests",
  "charged",
  "failed",
  "promptTokens",
  "completionTokens",
  "cachedTokens",
  "reasoningTokens",
  "costUsd",
  "cacheHits",
  "cacheSavedUsd",
  "latencyMsSum",
  "firstTokenCount",
  "firstTokenMsSum",
  ...Array.from({ length: HISTOGRAM_BUCKETS }, (_, index) => `latency${index}` as const),
  ...Array.from({ length: HISTOGRAM_BUCKETS }, (_, index) => `firstToken${index}` as const),
] as const;
export type UsageHourSum = (typeof USAGE_HOUR_SUMS)[number];

/** What the rollup reads of a log row (a RequestLogEntry, or a row read back from the table). */
export type StoredRow = Pick<
  RequestLogEntry,
  | "tokenId"
  | "userId"
  | "model"
  | "channelId"
  | "status"
  | "errorMessage"
  | "promptTokens"
  | "completionTokens"
  | "cachedTokens"
  | "reasoningTokens"
  | "costUsd"
  | "cacheSavedUsd"
  | "latencyMs"
  | "firstTokenMs"
> & { servedModel?: string | null; cacheStatus: string | null; mcpServer?: string | null; endUser?: string | null };

/** One rollup row: its key, then its sums in USAGE_HOUR_SUMS order. */
export interface UsageHourRow {
  /** The hour's start, epoch ms. */
  hour: number;
  tokenId: string;
  userId: string;
  model: string;
  channelId: string;
  statusClass: number;
  /** The end user, in the end-user rollups (EndUserHour, EndUserDay); "" in the others. */
  endUser: string;
  sums: number[];
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const FIRST_LATENCY = USAGE_HOUR_SUMS.indexOf("latency0");
const FIRST_FIRST_TOKEN = USAGE_HOUR_SUMS.indexOf("firstToken0");

export function bucketOf(ms: number): number {
  let index = 0;
  while (index < LATENCY_BOUNDS_MS.length && ms >= LATENCY_BOUNDS_MS[index]!) index += 1;
  return index;
}

/**
 * Adds rows up into rollup rows (one per key); `at` gives a row's time in epoch ms. With
 * `byEndUser`, only rows that name an end user, each end user apart (the end-user rollups).
 */
export function rollUp<Row extends StoredRow>(rows: Iterable<Row>, at: (row: Row) => number, byEndUser = false): UsageHourRow[] {
  const groups = new Map<string, UsageHourRow>();
  for (const row of rows) {
    const endUser = byEndUser ? row.endUser : "";
    if (endUser == null) continue;
    const hour = Math.floor(at(row) / HOUR_MS) * HOUR_MS;
    // A /mcp tools/call rolls up under `mcp:<server>`: per-server counts, errors and latency.
    const model = row.servedModel ?? row.model ?? (row.mcpServer ? `mcp:${row.mcpServer}` : "");
    const statusClass = Math.min(9, Math.max(0, Math.floor(row.status / 100)));
    const key = `${hour}\u0000${row.tokenId ?? ""}\u0000${row.userId ?? ""}\u0000${model}\u0000${row.channelId ?? ""}\u0000${statusClass}\u0000${endUser}`;
    let group = groups.get(key);
    if (!group) {
      group = {
        hour,
        tokenId: row.tokenId ?? "",
        userId: row.userId ?? "",
        model,
        channelId: row.channelId ?? "",
        statusClass,
        endUser,
        sums: new Array(USAGE_HOUR_SUMS.length).fill(0),
      };
      groups.set(key, group);
    }
    const sums = group.sums;
    sums[0]! += 1;
    // A request for limits: a channel took it or the response cache answered it; a refusal is not.
    if (row.channelId !== null || row.cacheStatus === "hit" || (row.mcpServer != null && row.status !== 429)) sums[1]! += 1;
    // Failed, as the dashboards count it: an error status, or an answer cut short.
    if (row.status >= 400 || row.errorMessage !== null) sums[2]! += 1;
    sums[3]! += row.promptTokens;
    sums[4]! += row.completionTokens;
    sums[5]! += row.cachedTokens;
    sums[6]! += row.reasoningTokens;
    sums[7]! += row.costUsd;
    if (row.cacheStatus === "hit") sums[8]! += 1;
    sums[9]! += row.cacheSavedUsd;
    sums[10]! += row.latencyMs;
    if (row.firstTokenMs !== null) {
      sums[11]! += 1;
      sums[12]! += row.firstTokenMs;
    }
    // The histograms hold answers only: a refusal's speed says nothing of an upstream's.
    if (row.status < 400) {
      sums[FIRST_LATENCY + bucketOf(row.latencyMs)]! += 1;
      if (row.firstTokenMs !== null) sums[FIRST_FIRST_TOKEN + bucketOf(row.firstTokenMs)]! += 1;
    }
  }
  // In key order: two processes adding to the same rows lock them in the same order.
  return [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, group]) => group);
}

/**
 * The hour rows summed per UTC day (the same keys, `hour` the day's start): the daily
 * rollups, which long ranges read instead of 24 times as many hours. Key order is kept.
 */
export function daysOf(hours: readonly UsageHourRow[]): UsageHourRow[] {
  const days = new Map<string, UsageHourRow>();
  for (const row of hours) {
    const day = Math.floor(row.hour / DAY_MS) * DAY_MS;
    const key = `${day}\u0000${row.tokenId}\u0000${row.userId}\u0000${row.model}\u0000${row.channelId}\u0000${row.statusClass}\u0000${row.endUser}`;
    const existing = days.get(key);
    if (!existing) days.set(key, { ...row, hour: day, sums: [...row.sums] });
    else for (let index = 0; index < row.sums.length; index += 1) existing.sums[index]! += row.sums[index]!;
  }
  return [...days.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
}

/**
 * A percentile from histogram counts: the bucket holding it, interpolated linearly within
 * the bucket's bounds (the open last bucket gives its lower bound). Null without samples.
 */
export function histogramPercentile(counts: readonly number[], fraction: number): number | null {
  const total = counts.reduce((sum, count) => sum + count, 0);
  if (total === 0) return null;
  const rank = fraction * total;
  let seen = 0;
  for (let index = 0; index < counts.length; index += 1) {
    const count = counts[index]!;
    if (count > 0 && seen + count >= rank) {
      const lower = index === 0 ? 0 : LATENCY_BOUNDS_MS[index - 1]!;
      const upper = LATENCY_BOUNDS_MS[index];
      if (upper === undefined) return lower;
      return Math.round(lower + ((rank - seen) / count) * (upper - lower));
    }
    seen += count;
  }
  return LATENCY_BOUNDS_MS.at(-1)!;
}
