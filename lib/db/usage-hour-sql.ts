import type { UsageGroup, UsageQuery } from "@/lib/usage/request-log-store";
import { HISTOGRAM_BUCKETS, USAGE_HOUR_KEYS, USAGE_HOUR_SUMS, type UsageHourRow } from "@/lib/usage/usage-hours";

// The SQL of the hourly rollups (UsageHour), for both databases: the upsert the log writer
// runs beside its inserts, and the grouped reads every usage view makes.

export type Dialect = "sqlite" | "postgresql";

/** The Setting row saying where the backfill of rows older than the rollups stands; gone once it is done. */
export const BACKFILL_MARK = "usageHours.backfill";

const HOUR_MS = 3_600_000;
const COLUMNS = [...USAGE_HOUR_KEYS, ...USAGE_HOUR_SUMS];
const quoted = (column: string) => `"${column}"`;

/** An upsert of `rows` rollup rows: new keys inserted, existing ones added to. */
export function upsertHoursSql(dialect: Dialect, rows: number): string {
  const placeholder = dialect === "sqlite" ? () => "?" : (index: number) => `$${index + 1}`;
  const tuples = Array.from({ length: rows }, (_, row) => `(${COLUMNS.map((_, column) => placeholder(row * COLUMNS.length + column)).join(", ")})`);
  return `INSERT INTO "UsageHour" (${COLUMNS.map(quoted).join(", ")}) VALUES ${tuples.join(", ")}
    ON CONFLICT (${USAGE_HOUR_KEYS.map(quoted).join(", ")}) DO UPDATE SET
    ${USAGE_HOUR_SUMS.map((column) => `"${column}" = "UsageHour"."${column}" + excluded."${column}"`).join(", ")}`;
}

/** A rollup row's values in column order, its hour as the database stores dates. */
export function hourRowValues(row: UsageHourRow, date: (date: Date) => unknown): unknown[] {
  return [date(new Date(row.hour)), row.tokenId, row.userId, row.model, row.channelId, row.statusClass, ...row.sums];
}

const DIMENSION_SQL: Record<UsageQuery["groupBy"][number], Record<Dialect, string>> = {
  hour: { sqlite: `"hour"`, postgresql: `"hour"` },
  day: { sqlite: `substr("hour", 1, 10)`, postgresql: `to_char("hour", 'YYYY-MM-DD')` },
  token: { sqlite: `"tokenId"`, postgresql: `"tokenId"` },
  user: { sqlite: `"userId"`, postgresql: `"userId"` },
  model: { sqlite: `"model"`, postgresql: `"model"` },
  channel: { sqlite: `"channelId"`, postgresql: `"channelId"` },
};

const TOTALS = [
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
] as const;
const LATENCY = Array.from({ length: HISTOGRAM_BUCKETS }, (_, index) => `latency${index}`);
const FIRST_TOKEN = Array.from({ length: HISTOGRAM_BUCKETS }, (_, index) => `firstToken${index}`);

/** Whole hours: `from` rounded down, `to` rounded up. */
export function hourSpan(from: Date, to?: Date): { from: Date; to?: Date } {
  return { from: new Date(Math.floor(from.getTime() / HOUR_MS) * HOUR_MS), ...(to ? { to: new Date(Math.ceil(to.getTime() / HOUR_MS) * HOUR_MS) } : {}) };
}

/** The grouped read of a usage query; `date` encodes a bound as the database compares dates. */
export function usageQuerySql(dialect: Dialect, query: UsageQuery, date: (date: Date) => unknown): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const bind = (value: unknown) => {
    params.push(value);
    return dialect === "sqlite" ? "?" : `$${params.length}`;
  };
  const list = (values: readonly string[]) => values.map(bind).join(", ");
  const span = hourSpan(query.from, query.to);
  const where = [`"hour" >= ${bind(date(span.from))}`];
  if (span.to) where.push(`"hour" < ${bind(date(span.to))}`);
  if (query.tokenIds) where.push(query.tokenIds.length ? `"tokenId" IN (${list(query.tokenIds)})` : "1 = 0");
  if (query.userId !== undefined) where.push(`"userId" = ${bind(query.userId)}`);
  if (query.channelId !== undefined) where.push(`"channelId" = ${bind(query.channelId)}`);
  if (query.models) where.push(query.models.length ? `"model" IN (${list(query.models)})` : "1 = 0");
  const keys = query.groupBy.map((dimension) => `${DIMENSION_SQL[dimension][dialect]} AS "${dimension}"`);
  const sums = [
    ...TOTALS.map((column) => `SUM("${column}") AS "${column}"`),
    `SUM(CASE WHEN "statusClass" >= 4 THEN "requests" ELSE 0 END) AS "errors"`,
    ...(query.histograms ? [...LATENCY, ...FIRST_TOKEN].map((column) => `SUM("${column}") AS "${column}"`) : []),
  ];
  const grouping = query.groupBy.length ? ` GROUP BY ${query.groupBy.map((_, index) => index + 1).join(", ")} ORDER BY ${query.groupBy.map((_, index) => index + 1).join(", ")}` : "";
  return { sql: `SELECT ${[...keys, ...sums].join(", ")} FROM "UsageHour" WHERE ${where.join(" AND ")}${grouping}`, params };
}

/** A row of usageQuerySql as a UsageGroup: numbers from whatever the driver returned, "" ids as null. */
export function usageGroupOf(row: Record<string, unknown>, query: UsageQuery): UsageGroup | null {
  // An aggregate without GROUP BY answers one row even over nothing.
  if (query.groupBy.length === 0 && row.requests === null) return null;
  const group: UsageGroup = {
    requests: Number(row.requests ?? 0),
    charged: Number(row.charged ?? 0),
    errors: Number(row.errors ?? 0),
    failed: Number(row.failed ?? 0),
    promptTokens: Number(row.promptTokens ?? 0),
    completionTokens: Number(row.completionTokens ?? 0),
    cachedTokens: Number(row.cachedTokens ?? 0),
    reasoningTokens: Number(row.reasoningTokens ?? 0),
    costUsd: Number(row.costUsd ?? 0),
    cacheHits: Number(row.cacheHits ?? 0),
    cacheSavedUsd: Number(row.cacheSavedUsd ?? 0),
    latencyMsSum: Number(row.latencyMsSum ?? 0),
    firstTokenCount: Number(row.firstTokenCount ?? 0),
    firstTokenMsSum: Number(row.firstTokenMsSum ?? 0),
  };
  if (query.histograms) {
    group.latency = LATENCY.map((column) => Number(row[column] ?? 0));
    group.firstToken = FIRST_TOKEN.map((column) => Number(row[column] ?? 0));
  }
  for (const dimension of query.groupBy) {
    const value = row[dimension];
    if (dimension === "hour") group.hour = value instanceof Date ? value.toISOString() : new Date(String(value)).toISOString();
    else if (dimension === "day") group.day = String(value);
    else group[dimension] = value === "" || value === null || value === undefined ? null : String(value);
  }
  return group;
}
