import type { UsageGroup, UsageQuery } from "@/lib/usage/request-log-store";
import { HISTOGRAM_BUCKETS, USAGE_HOUR_KEYS, USAGE_HOUR_SUMS, type UsageHourRow } from "@/lib/usage/usage-hours";

// The SQL of the hourly rollups (UsageHour, and EndUserHour for requests naming an end user),
// for both databases: the upsert the log writer runs beside its inserts, and the grouped
// reads every usage view makes.

export type Dialect = "sqlite" | "postgresql";

/** The Setting row saying where the backfill of rows older than the rollups stands; gone once it is done. */
export const BACKFILL_MARK = "usageHours.backfill";

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const KEY_COLUMNS = USAGE_HOUR_KEYS.slice(1);
const quoted = (column: string) => `"${column}"`;

/**
 * The rollup tables: hours, and days (each the sum of its hours, written with them); the
 * end users' pair holds the same totals per end user, for the rows that name one.
 */
export type RollupTable = "UsageHour" | "UsageDay" | "EndUserHour" | "EndUserDay";
const TIME_COLUMN: Record<RollupTable, string> = { UsageHour: "hour", UsageDay: "day", EndUserHour: "hour", EndUserDay: "day" };
const byEndUser = (table: RollupTable) => table === "EndUserHour" || table === "EndUserDay";
const keyColumns = (table: RollupTable) => (byEndUser(table) ? [...KEY_COLUMNS, "endUser"] : KEY_COLUMNS);

/** A pair of rollup tables: its hours, and its days. */
interface RollupFamily {
  hours: RollupTable;
  days: RollupTable;
}
const USAGE: RollupFamily = { hours: "UsageHour", days: "UsageDay" };
const END_USERS: RollupFamily = { hours: "EndUserHour", days: "EndUserDay" };

/** An upsert of `rows` rollup rows into `table`: new keys inserted, existing ones added to. */
export function upsertHoursSql(dialect: Dialect, rows: number, table: RollupTable = "UsageHour"): string {
  const columns = [TIME_COLUMN[table], ...keyColumns(table), ...USAGE_HOUR_SUMS];
  const placeholder = dialect === "sqlite" ? () => "?" : (index: number) => `$${index + 1}`;
  const tuples = Array.from({ length: rows }, (_, row) => `(${columns.map((_, column) => placeholder(row * columns.length + column)).join(", ")})`);
  return `INSERT INTO "${table}" (${columns.map(quoted).join(", ")}) VALUES ${tuples.join(", ")}
    ON CONFLICT (${[TIME_COLUMN[table], ...keyColumns(table)].map(quoted).join(", ")}) DO UPDATE SET
    ${USAGE_HOUR_SUMS.map((column) => `"${column}" = "${table}"."${column}" + excluded."${column}"`).join(", ")}`;
}

/** A rollup row's values in `table`'s column order, its hour (or day) as the database stores dates. */
export function hourRowValues(row: UsageHourRow, date: (date: Date) => unknown, table: RollupTable = "UsageHour"): unknown[] {
  const keys = [date(new Date(row.hour)), row.tokenId, row.userId, row.model, row.channelId, row.statusClass];
  return byEndUser(table) ? [...keys, row.endUser, ...row.sums] : [...keys, ...row.sums];
}

// Read over the union of the tables' rows, whose time column is "at".
const DIMENSION_SQL: Record<UsageQuery["groupBy"][number], Record<Dialect, string>> = {
  hour: { sqlite: `"at"`, postgresql: `"at"` },
  day: { sqlite: `substr("at", 1, 10)`, postgresql: `to_char("at", 'YYYY-MM-DD')` },
  token: { sqlite: `"tokenId"`, postgresql: `"tokenId"` },
  user: { sqlite: `"userId"`, postgresql: `"userId"` },
  model: { sqlite: `"model"`, postgresql: `"model"` },
  channel: { sqlite: `"channelId"`, postgresql: `"channelId"` },
  end_user: { sqlite: `"endUser"`, postgresql: `"endUser"` },
};

// The summed columns: the totals, then the two histograms.
const FIRST_BUCKET = USAGE_HOUR_SUMS.indexOf("latency0");
const TOTALS = USAGE_HOUR_SUMS.slice(0, FIRST_BUCKET);
const LATENCY = USAGE_HOUR_SUMS.slice(FIRST_BUCKET, FIRST_BUCKET + HISTOGRAM_BUCKETS);
const FIRST_TOKEN = USAGE_HOUR_SUMS.slice(FIRST_BUCKET + HISTOGRAM_BUCKETS);

/** Whole hours: `from` rounded down, `to` rounded up. */
export function hourSpan(from: Date, to?: Date): { from: Date; to?: Date } {
  return { from: new Date(Math.floor(from.getTime() / HOUR_MS) * HOUR_MS), ...(to ? { to: new Date(Math.ceil(to.getTime() / HOUR_MS) * HOUR_MS) } : {}) };
}

/**
 * Where a span's rows are read: whole UTC days from the daily table, the hours before the
 * first and after the last whole day from the hourly one (all hours when grouped by hour).
 * `to` undefined: open-ended (the current day is read by the hour).
 */
export function spanParts(
  from: Date,
  to: Date | undefined,
  byHour: boolean,
  now = Date.now(),
  family: RollupFamily = USAGE,
): { table: RollupTable; from: number; to: number | undefined }[] {
  const span = hourSpan(from, to);
  const start = span.from.getTime();
  const end = span.to?.getTime();
  if (byHour) return [{ table: family.hours, from: start, to: end }];
  const firstDay = Math.ceil(start / DAY_MS) * DAY_MS;
  const lastDay = Math.floor((end ?? now) / DAY_MS) * DAY_MS;
  if (firstDay >= lastDay) return [{ table: family.hours, from: start, to: end }];
  return [
    ...(start < firstDay ? [{ table: family.hours, from: start, to: firstDay }] : []),
    { table: family.days, from: firstDay, to: lastDay },
    ...(end === undefined || lastDay < end ? [{ table: family.hours, from: lastDay, to: end }] : []),
  ];
}

/**
 * The grouped read of a usage query; `date` encodes a bound as the database compares dates.
 * A query by end user (grouped or filtered) reads the end users' rollups.
 */
export function usageQuerySql(dialect: Dialect, query: UsageQuery, date: (date: Date) => unknown, now = Date.now()): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const bind = (value: unknown) => {
    params.push(value);
    return dialect === "sqlite" ? "?" : `$${params.length}`;
  };
  const list = (values: readonly string[]) => values.map(bind).join(", ");
  const measures = [...TOTALS, ...(query.histograms ? [...LATENCY, ...FIRST_TOKEN] : [])];
  const filters = (): string[] => {
    const where: string[] = [];
    if (query.tokenIds) where.push(query.tokenIds.length ? `"tokenId" IN (${list(query.tokenIds)})` : "1 = 0");
    if (query.userId !== undefined) where.push(`"userId" = ${bind(query.userId)}`);
    if (query.channelId !== undefined) where.push(`"channelId" = ${bind(query.channelId)}`);
    if (query.models) where.push(query.models.length ? `"model" IN (${list(query.models)})` : "1 = 0");
    if (query.endUser !== undefined) where.push(`"endUser" = ${bind(query.endUser)}`);
    return where;
  };
  const family = query.groupBy.includes("end_user") || query.endUser !== undefined ? END_USERS : USAGE;
  const parts = spanParts(query.from, query.to, query.groupBy.includes("hour"), now, family).map((part) => {
    const time = TIME_COLUMN[part.table];
    const where = [`"${time}" >= ${bind(date(new Date(part.from)))}`];
    if (part.to !== undefined) where.push(`"${time}" < ${bind(date(new Date(part.to)))}`);
    where.push(...filters());
    return `SELECT "${time}" AS "at", ${[...keyColumns(part.table), ...measures].map(quoted).join(", ")} FROM "${part.table}" WHERE ${where.join(" AND ")}`;
  });
  const keys = query.groupBy.map((dimension) => `${DIMENSION_SQL[dimension][dialect]} AS "${dimension}"`);
  const sums = [...measures.map((column) => `SUM("${column}") AS "${column}"`), `SUM(CASE WHEN "statusClass" >= 4 THEN "requests" ELSE 0 END) AS "errors"`];
  const positions = query.groupBy.map((_, index) => index + 1).join(", ");
  const grouping = query.groupBy.length ? ` GROUP BY ${positions} ORDER BY ${positions}` : "";
  return { sql: `SELECT ${[...keys, ...sums].join(", ")} FROM (${parts.join(" UNION ALL ")}) AS "rows"${grouping}`, params };
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
