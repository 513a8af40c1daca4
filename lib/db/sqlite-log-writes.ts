import Database from "better-sqlite3";
import { LOG_COLUMNS, type LogBatch, logRowValues } from "@/lib/usage/request-log-store";
import { daysOf, rollUp, type StoredRow } from "@/lib/usage/usage-hours";
import { BACKFILL_MARK, hourRowValues, upsertHoursSql } from "./usage-hour-sql";

// Dates as the Prisma SQLite adapter writes them, so both read the same rows.
export const sqliteDate = (date: Date) => date.toISOString().replace("Z", "+00:00");
const ENCODE = { date: sqliteDate, boolean: (value: boolean) => (value ? 1 : 0) };

/** One batch as plain values, ready for SQLite and cheap to hand to another thread. */
export interface SqliteLogBatch {
  rows: unknown[][];
  /** Rollup rows (UsageHour, then UsageDay, then the end users' pair) in column order. */
  hours: unknown[][];
  days: unknown[][];
  endUserHours: unknown[][];
  endUserDays: unknown[][];
  /** Per token: id, tokens, USD, last used (SQLite date text). */
  usage: [tokenId: string, tokens: number, usd: number, lastUsedAt: string][];
}

export function encodeLogBatch({ rows, hours, endUserHours, usage }: LogBatch): SqliteLogBatch {
  return {
    rows: rows.map((entry) => logRowValues(entry, ENCODE)),
    hours: hours.map((row) => hourRowValues(row, sqliteDate)),
    days: daysOf(hours).map((row) => hourRowValues(row, sqliteDate)),
    endUserHours: endUserHours.map((row) => hourRowValues(row, sqliteDate, "EndUserHour")),
    endUserDays: daysOf(endUserHours).map((row) => hourRowValues(row, sqliteDate, "EndUserDay")),
    usage: [...usage].map(([tokenId, { tokens, usd, lastUsedAt }]) => [tokenId, tokens, usd, sqliteDate(lastUsedAt)]),
  };
}

/** Prepared once per connection: inserts the rows, adds their hours and each token's usage, in one transaction. */
export function prepareLogWrites(database: Database.Database): (batch: SqliteLogBatch) => void {
  const insert = database.prepare(`INSERT INTO "RequestLog" (${LOG_COLUMNS.map((column) => `"${column}"`).join(", ")}) VALUES (${LOG_COLUMNS.map(() => "?").join(", ")})`);
  const addHour = database.prepare(upsertHoursSql("sqlite", 1, "UsageHour"));
  const addDay = database.prepare(upsertHoursSql("sqlite", 1, "UsageDay"));
  const addEndUserHour = database.prepare(upsertHoursSql("sqlite", 1, "EndUserHour"));
  const addEndUserDay = database.prepare(upsertHoursSql("sqlite", 1, "EndUserDay"));
  const addUsage = database.prepare(`UPDATE "Token" SET "usedTokens" = "usedTokens" + ?, "usedUsd" = "usedUsd" + ?, "lastUsedAt" = ? WHERE "id" = ?`);
  return database.transaction(({ rows, hours, days, endUserHours, endUserDays, usage }: SqliteLogBatch) => {
    for (const row of rows) insert.run(...row);
    for (const hour of hours) addHour.run(...hour);
    for (const day of days) addDay.run(...day);
    for (const hour of endUserHours) addEndUserHour.run(...hour);
    for (const day of endUserDays) addEndUserDay.run(...day);
    for (const [tokenId, tokens, usd, lastUsedAt] of usage) addUsage.run(tokens, usd, lastUsedAt, tokenId);
  });
}

/** The settings every connection to the gateway's SQLite file uses. */
export function openSqlite(file: string): Database.Database {
  // The busy timeout first: switching to WAL itself waits for a lock another process may hold.
  const database = new Database(file, { timeout: 30_000 });
  database.pragma("journal_mode = WAL");
  return database;
}

const PENDING = `EXISTS (SELECT 1 FROM "Setting" WHERE "key" = '${BACKFILL_MARK}')`;
const DELETE_BATCH = `DELETE FROM "RequestLog" WHERE NOT ${PENDING} AND rowid IN (SELECT rowid FROM "RequestLog" WHERE "createdAt" < ? ORDER BY "createdAt" LIMIT ?)`;

/**
 * Prepared once per connection: deletes up to `limit` rows older than `before` (their usage
 * is in the hourly rollups already). Nothing is deleted while old rows wait for the backfill.
 */
export function prepareLogSweep(database: Database.Database): (before: string, limit: number) => number {
  const remove = database.prepare(DELETE_BATCH);
  return (before: string, limit: number) => remove.run(before, limit).changes;
}

/**
 * Prepared once per connection: rolls up the next `limit` rows the log held before the
 * rollups existed (rowids up to the migration's mark) and moves the mark, in one
 * transaction; false once nothing is left (the mark is then removed).
 */
export function prepareHourBackfill(database: Database.Database): (limit: number) => boolean {
  const readMark = database.prepare(`SELECT "value" FROM "Setting" WHERE "key" = ?`);
  const moveMark = database.prepare(`UPDATE "Setting" SET "value" = ? WHERE "key" = ?`);
  const dropMark = database.prepare(`DELETE FROM "Setting" WHERE "key" = ?`);
  const readRows = database.prepare(
    `SELECT rowid AS "position", "createdAt", "tokenId", "userId", "model", "servedModel", "channelId", "status", "errorMessage", "promptTokens",
            "completionTokens", "cachedTokens", "reasoningTokens", "costUsd", "cacheStatus", "cacheSavedUsd", "latencyMs", "firstTokenMs"
       FROM "RequestLog" WHERE rowid > ? AND rowid <= ? ORDER BY rowid LIMIT ?`,
  );
  const addHour = database.prepare(upsertHoursSql("sqlite", 1, "UsageHour"));
  const addDay = database.prepare(upsertHoursSql("sqlite", 1, "UsageDay"));
  const batch = database.transaction((limit: number) => {
    const mark = readMark.get(BACKFILL_MARK) as { value: string } | undefined;
    if (!mark) return false;
    const { through, after } = JSON.parse(mark.value) as { through: number; after: number };
    const rows = readRows.all(after, through, limit) as (StoredRow & { position: number; createdAt: string | number })[];
    const hours = rollUp(rows, (row) => (typeof row.createdAt === "number" ? row.createdAt : Date.parse(row.createdAt)));
    for (const hour of hours) addHour.run(...hourRowValues(hour, sqliteDate));
    for (const day of daysOf(hours)) addDay.run(...hourRowValues(day, sqliteDate));
    if (rows.length < limit) {
      dropMark.run(BACKFILL_MARK);
      return false;
    }
    moveMark.run(JSON.stringify({ through, after: rows.at(-1)!.position }), BACKFILL_MARK);
    return true;
  });
  // Write-locked from the start: another process's batch waits, then reads the moved mark.
  return (limit: number) => batch.immediate(limit);
}
