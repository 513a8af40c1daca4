import { z } from "zod";
import type { ConsoleSession } from "@/lib/auth/console-session";
import type { RequestLog } from "@/lib/db/generated/client";
import type { Runtime } from "@/lib/runtime";
import { loggedEndUser } from "@/lib/teams/end-users";
import { countSql, type LogDirection, type LogFilter, type LogPosition, pageSql, STATUS_CLASSES, type StatusClass, statusValuesSql } from "./log-page-sql";

export type { LogFilter, StatusClass } from "./log-page-sql";

export const PAGE_SIZE = 50;
/** Past this many matching rows the Logs page says "more than" rather than counting on. */
export const COUNT_CAP = 10_000;

/** What the log queries need of the runtime. */
export type LogSource = Pick<Runtime, "database" | "databaseKind" | "logs">;

/** Where a page starts: strictly older (or newer) than a row. Opaque to callers (base64url JSON). */
export interface LogCursor extends LogPosition {
  direction: LogDirection;
}

const cursorSchema = z.object({ t: z.iso.datetime(), i: z.string().min(1).max(200), d: z.enum(["older", "newer"]).default("older") });

export function encodeCursor(row: LogPosition, direction: LogDirection = "older"): string {
  const json = { t: row.createdAt.toISOString(), i: row.id, ...(direction === "newer" ? { d: direction } : {}) };
  return Buffer.from(JSON.stringify(json)).toString("base64url");
}

export function decodeCursor(text: string): LogCursor | undefined {
  if (!/^[A-Za-z0-9_-]{1,600}$/.test(text)) return undefined;
  try {
    const parsed = cursorSchema.safeParse(JSON.parse(Buffer.from(text, "base64url").toString("utf8")));
    return parsed.success ? { createdAt: new Date(parsed.data.t), id: parsed.data.i, direction: parsed.data.d } : undefined;
  } catch {
    return undefined;
  }
}

const INSTANT = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?)?$/i;

/**
 * An ISO 8601 date (UTC midnight) or instant. A time without an offset is ambiguous: refused
 * unless `assumeUtc` (the page's datetime-local inputs, which say UTC beside them).
 */
export function parseInstant(text: string, assumeUtc = false): Date | undefined {
  if (!INSTANT.test(text)) return undefined;
  const hasTime = text.length > 10;
  const hasOffset = /(Z|[+-]\d{2}:\d{2})$/i.test(text);
  if (hasTime && !hasOffset && !assumeUtc) return undefined;
  const date = new Date(hasTime && !hasOffset ? `${text}Z` : text);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

const ID = z.string().trim().min(1).max(200);
/** A string read by `parse`, which answers undefined for what it cannot read. */
function readBy<T>(parse: (text: string) => T | undefined) {
  return z.string().transform((text, context) => {
    const value = parse(text);
    if (value !== undefined) return value;
    context.addIssue({ code: "custom", message: "unreadable" });
    return z.NEVER;
  });
}
const PARAMETERS = {
  from: readBy((text) => parseInstant(text)),
  to: readBy((text) => parseInstant(text)),
  token: ID,
  user: ID,
  model: ID,
  channel: ID,
  session: ID,
  end_user: z.string().trim().min(1).max(4096),
  status: z.enum(Object.keys(STATUS_CLASSES) as [StatusClass, ...StatusClass[]]),
  cursor: readBy(decodeCursor),
  limit: z.coerce.number().int().min(1).max(1000),
} as const;

/** The page's from/to: its datetime-local inputs carry no offset, and are labelled UTC. */
const PAGE_INSTANT = readBy((text) => parseInstant(text, true));

const MESSAGES: Record<keyof typeof PARAMETERS, string> = {
  from: "from must be an ISO 8601 date or an instant with an offset, e.g. 2025-06-01 or 2025-06-01T09:30:00Z.",
  to: "to must be an ISO 8601 date or an instant with an offset, e.g. 2025-06-02 or 2025-06-02T09:30:00Z (exclusive).",
  token: "token must be a token id.",
  user: "user must be a user id.",
  model: "model must be a model name.",
  channel: "channel must be a channel id.",
  session: "session must be a session hash.",
  end_user: "end_user must be an end user's id.",
  status: "status must be one of 2xx, 4xx, 5xx.",
  cursor: "cursor must be a next_cursor this API returned.",
  limit: "limit must be an integer from 1 to 1000.",
};

export interface LogQuery {
  filter: LogFilter;
  cursor?: LogCursor;
  limit?: number;
}

export type LogQueryResult = { ok: true; query: LogQuery } | { ok: false; param: string; message: string };

/**
 * The Logs parameters (the page's URL and GET /api/admin/logs share them). Empty values are
 * absent; `lenient` (the page) drops a bad value, otherwise it is named in the error.
 */
export function parseLogQuery(search: URLSearchParams, lenient = false): LogQueryResult {
  const filter: LogFilter = {};
  const query: LogQuery = { filter };
  for (const name of Object.keys(PARAMETERS) as (keyof typeof PARAMETERS)[]) {
    const text = search.get(name);
    if (text === null || text.trim() === "") continue;
    const parsed = lenient && (name === "from" || name === "to") ? PAGE_INSTANT.safeParse(text) : PARAMETERS[name].safeParse(text);
    if (!parsed.success) {
      if (lenient) continue;
      return { ok: false, param: name, message: MESSAGES[name] };
    }
    if (name === "cursor") query.cursor = parsed.data as LogCursor;
    else if (name === "limit") query.limit = parsed.data as number;
    else if (name === "end_user") filter.endUser = loggedEndUser(parsed.data as string);
    else Object.assign(filter, { [name]: parsed.data });
  }
  return { ok: true, query };
}

/**
 * The filter as `user` may run it: anyone but an admin sees only rows with their own userId,
 * except the rows of one token of a team they own or administer (`teamTokens`), filtered by it.
 */
export function visibleTo(user: Pick<ConsoleSession, "role" | "userId">, filter: LogFilter, teamTokens: ReadonlySet<string> = new Set()): LogFilter {
  if (user.role === "admin" || (filter.token && teamTokens.has(filter.token))) return filter;
  return { ...filter, user: user.userId };
}

/**
 * The tokens whose logs `user` may read: every token for an admin; otherwise their own, and
 * the tokens of the teams they own or administer (`team` names the team of those).
 */
export async function readableTokens(source: Pick<LogSource, "database">, user: Pick<ConsoleSession, "role" | "userId">) {
  if (user.role === "admin") {
    return (await source.database.token.findMany({ select: { id: true, name: true }, orderBy: { name: "asc" } })).map((token) => ({ ...token, team: null }));
  }
  const managed = await source.database.teamMember.findMany({ where: { userId: user.userId, role: { in: ["owner", "admin"] } }, select: { teamId: true } });
  const tokens = await source.database.token.findMany({
    where: { OR: [{ userId: user.userId }, { teamId: { in: managed.map((member) => member.teamId) } }] },
    select: { id: true, name: true, userId: true, team: { select: { name: true } } },
    orderBy: { name: "asc" },
  });
  return tokens.map((token) => ({ id: token.id, name: token.name, team: token.userId === user.userId ? null : (token.team?.name ?? null) }));
}

/** The team tokens among `readableTokens` (those whose rows are not the user's own). */
export const teamTokenIds = (tokens: { id: string; team: string | null }[]) => new Set(tokens.filter((token) => token.team !== null).map((token) => token.id));

export interface LogPage {
  /** Newest first. */
  rows: RequestLog[];
  /** The next older page, or null when none is left. */
  older: string | null;
  /** The page just newer than this one, or null when this is the newest. */
  newer: string | null;
}

async function statusValues(source: LogSource, filter: LogFilter): Promise<number[] | undefined> {
  if (filter.session || (filter.status !== "4xx" && filter.status !== "5xx")) return undefined;
  const found = await source.database.$queryRawUnsafe<{ value: number | bigint }[]>(statusValuesSql(filter.status));
  return found.map((row) => Number(row.value));
}

/** Up to `limit` rows strictly past `after` in `direction`, in that order. */
async function pageRows(source: LogSource, filter: LogFilter, after: LogPosition | undefined, direction: LogDirection, limit: number): Promise<RequestLog[]> {
  const statuses = await statusValues(source, filter);
  if (statuses?.length === 0) return [];
  const { sql, params } = pageSql(source.databaseKind, { filter, after, direction, limit, statuses });
  // Prisma types raw columns by the table's declared types: dates, booleans and JSON come back as findMany gives them.
  return source.database.$queryRawUnsafe<RequestLog[]>(sql, ...params);
}

/**
 * One page of log rows by keyset, newest first: (createdAt, id) order, never an OFFSET, so
 * every page costs the same and rows written meanwhile never shift one onto the next page.
 */
export async function queryLogPage(source: LogSource, filter: LogFilter, cursor: LogCursor | undefined, limit = PAGE_SIZE): Promise<LogPage> {
  // Rows still queued in this process are written first, so the answer is current.
  await source.logs.flush();
  if (cursor?.direction === "newer") {
    const newer = await pageRows(source, filter, cursor, "newer", limit + 1);
    // Fewer than a page newer: that is the newest page.
    if (newer.length <= limit) return queryLogPage(source, filter, undefined, limit);
    const rows = newer.slice(0, limit).reverse();
    return { rows, older: encodeCursor(rows.at(-1)!), newer: encodeCursor(rows[0]!, "newer") };
  }
  const found = await pageRows(source, filter, cursor, "older", limit + 1);
  const rows = found.slice(0, limit);
  return {
    rows,
    older: found.length > limit ? encodeCursor(rows.at(-1)!) : null,
    newer: cursor && rows.length ? encodeCursor(rows[0]!, "newer") : null,
  };
}

/** How many rows match, counted no further than `cap` (the page says "more than" past it). */
export async function countLogs(source: LogSource, filter: LogFilter, cap = COUNT_CAP): Promise<{ count: number; more: boolean }> {
  await source.logs.flush();
  const { sql, params } = countSql(source.databaseKind, filter, cap + 1);
  const [row] = await source.database.$queryRawUnsafe<{ count: number | bigint }[]>(sql, ...params);
  const count = Number(row?.count ?? 0);
  return count > cap ? { count: cap, more: true } : { count, more: false };
}

const EXPORT_BATCH = 1000;

/** Every matching row, newest first, a keyset batch at a time (the CSV export); nothing is held past its batch. */
export async function* iterateLogs(source: LogSource, filter: LogFilter, batch = EXPORT_BATCH): AsyncGenerator<RequestLog[]> {
  await source.logs.flush();
  let after: LogPosition | undefined;
  for (;;) {
    const rows = await pageRows(source, filter, after, "older", batch);
    if (rows.length > 0) yield rows;
    if (rows.length < batch) return;
    after = rows.at(-1);
  }
}

export async function findLog(runtime: LogSource, user: Pick<ConsoleSession, "role" | "userId">, id: string) {
  await runtime.logs.flush();
  return runtime.database.requestLog.findFirst({ where: { id, ...(user.role === "admin" ? {} : { userId: user.userId }) } });
}
