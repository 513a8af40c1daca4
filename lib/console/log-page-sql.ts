import type { DatabaseKind } from "@/lib/db/database-url";

// The Logs page's SQL: one page of rows by keyset, newest first, each filter served by an
// index of "RequestLog" that also orders by time (see the usage_hours migration). The same
// SQL runs on SQLite and PostgreSQL; only SQLite gets the planner hints (unary `+`), since
// without statistics it would pick any index whose column has an equality.

export const STATUS_CLASSES = { "2xx": [200, 300], "4xx": [400, 500], "5xx": [500, 600] } as const satisfies Record<string, readonly [number, number]>;
export type StatusClass = keyof typeof STATUS_CLASSES;

export interface LogFilter {
  from?: Date;
  /** Exclusive. */
  to?: Date;
  token?: string;
  user?: string;
  model?: string;
  channel?: string;
  status?: StatusClass;
  session?: string;
  /** The app's end user, as logged. */
  endUser?: string;
}

/** A row's place in (createdAt, id) order. */
export interface LogPosition {
  createdAt: Date;
  id: string;
}

/** "older": rows strictly before `after`, newest first; "newer": rows strictly after it, oldest first. */
export type LogDirection = "older" | "newer";

interface Sql {
  sql: string;
  params: unknown[];
}

// Which index a query walks, most selective first; the other filters are checked on its rows.
const EQUALITY_COLUMNS = [
  ["session", "sessionHash"],
  ["endUser", "endUser"],
  ["token", "tokenId"],
  ["user", "userId"],
  ["model", "model"],
  ["channel", "channelId"],
] as const;

/** Statuses of a rare class are read per status value from the (status, createdAt) index. */
const isRareClass = (status: StatusClass | undefined) => status === "4xx" || status === "5xx";

class Builder {
  readonly params: unknown[] = [];
  constructor(readonly kind: DatabaseKind) {}

  value(value: unknown): string {
    this.params.push(value);
    return this.kind === "sqlite" ? "?" : `$${this.params.length}`;
  }

  date(date: Date): string {
    // Dates as the Prisma SQLite adapter stores them (ISO text with +00:00), compared as text.
    return this.kind === "sqlite" ? this.value(date.toISOString().replace("Z", "+00:00")) : `CAST(${this.value(date.toISOString())} AS TIMESTAMP(3))`;
  }

  /** A column the planner may not use an index for (SQLite's unary `+`). */
  unindexed(column: string): string {
    return this.kind === "sqlite" ? `+"${column}"` : `"${column}"`;
  }
}

/** The lead column: the index this query walks in time order. */
function leadOf(filter: LogFilter): string | undefined {
  if (filter.session) return "sessionHash";
  if (filter.endUser) return "endUser";
  if (isRareClass(filter.status)) return "status";
  return EQUALITY_COLUMNS.find(([key]) => filter[key])?.[1];
}

/** The WHERE terms of a filter, every column but `lead` kept off its index. */
function filterTerms(builder: Builder, filter: LogFilter, lead: string | undefined, statusTerm: "range" | "none"): string[] {
  const terms: string[] = [];
  for (const [key, column] of EQUALITY_COLUMNS) {
    const value = filter[key];
    if (value) terms.push(`${column === lead ? `"${column}"` : builder.unindexed(column)} = ${builder.value(value)}`);
  }
  if (filter.status && statusTerm === "range") {
    const [low, high] = STATUS_CLASSES[filter.status];
    const column = lead === "status" ? `"status"` : builder.unindexed("status");
    terms.push(`${column} >= ${low} AND ${column} < ${high}`);
  }
  if (filter.from) terms.push(`"createdAt" >= ${builder.date(filter.from)}`);
  if (filter.to) terms.push(`"createdAt" < ${builder.date(filter.to)}`);
  return terms;
}

function keysetTerm(builder: Builder, after: LogPosition, direction: LogDirection): string {
  const [inclusive, strict] = direction === "older" ? ["<=", "<"] : [">=", ">"];
  const at = builder.date(after.createdAt);
  // The range on createdAt alone is what the index serves; the id only breaks ties.
  return `"createdAt" ${inclusive} ${at} AND ("createdAt" ${strict} ${builder.date(after.createdAt)} OR "id" ${strict} ${builder.value(after.id)})`;
}

/**
 * The distinct status values of a class, one index seek each (a loose index scan), so a page
 * of 5xx rows merges a few per-status time-ordered reads instead of sorting every 5xx row.
 */
export function statusValuesSql(status: StatusClass): string {
  const [low, high] = STATUS_CLASSES[status];
  return `WITH RECURSIVE "found"("value") AS (
  SELECT MIN("status") FROM "RequestLog" WHERE "status" >= ${low} AND "status" < ${high}
  UNION ALL
  SELECT (SELECT MIN("status") FROM "RequestLog" WHERE "status" > "found"."value" AND "status" < ${high}) FROM "found" WHERE "found"."value" IS NOT NULL
) SELECT "value" FROM "found" WHERE "value" IS NOT NULL`;
}

export interface PageQuery {
  filter: LogFilter;
  after?: LogPosition;
  direction: LogDirection;
  limit: number;
  /** For a 4xx or 5xx filter: the class's status values (statusValuesSql). */
  statuses?: number[];
}

/** The rows of one page, in `direction` order. */
export function pageSql(kind: DatabaseKind, { filter, after, direction, limit, statuses = [] }: PageQuery): Sql {
  const builder = new Builder(kind);
  const order = direction === "older" ? `"createdAt" DESC, "id" DESC` : `"createdAt" ASC, "id" ASC`;
  const lead = leadOf(filter);
  const select = (extra: string[]) => {
    const terms = [...extra, ...filterTerms(builder, filter, lead, lead === "status" ? "none" : "range")];
    if (after) terms.push(keysetTerm(builder, after, direction));
    return `SELECT * FROM "RequestLog"${terms.length ? ` WHERE ${terms.join(" AND ")}` : ""} ORDER BY ${order} LIMIT ${limit}`;
  };
  if (lead !== "status") return { sql: select([]), params: builder.params };
  // One time-ordered read per status value, merged.
  const arms = statuses.map((status, index) => `SELECT * FROM (${select([`"status" = ${Math.trunc(status)}`])}) AS "arm${index}"`);
  return { sql: `${arms.join(" UNION ALL ")} ORDER BY ${order} LIMIT ${limit}`, params: builder.params };
}

/** How many rows match, counting at most `cap` (a bounded read of one index). */
export function countSql(kind: DatabaseKind, filter: LogFilter, cap: number): Sql {
  const builder = new Builder(kind);
  // Any status class counts fastest as a range over the (status, createdAt) index when nothing more selective is asked.
  const lead = leadOf(filter) ?? (filter.status ? "status" : undefined);
  const terms = filterTerms(builder, filter, lead, "range");
  const where = terms.length ? ` WHERE ${terms.join(" AND ")}` : "";
  return { sql: `SELECT COUNT(*) AS "count" FROM (SELECT 1 AS "one" FROM "RequestLog"${where} LIMIT ${Math.trunc(cap)}) AS "capped"`, params: builder.params };
}
