import Database from "better-sqlite3";
import type { RequestLogEntry } from "@/lib/usage/request-log-entry";
import { LOG_COLUMNS, logRowValues, type TokenUsage } from "@/lib/usage/request-log-store";

// Dates as the Prisma SQLite adapter writes them, so both read the same rows.
export const sqliteDate = (date: Date) => date.toISOString().replace("Z", "+00:00");
const ENCODE = { date: sqliteDate, boolean: (value: boolean) => (value ? 1 : 0) };

/** One batch as plain values, ready for SQLite and cheap to hand to another thread. */
export interface SqliteLogBatch {
  rows: unknown[][];
  /** Per token: id, tokens, USD, last used (SQLite date text). */
  usage: [tokenId: string, tokens: number, usd: number, lastUsedAt: string][];
}

export function encodeLogBatch(entries: RequestLogEntry[], usage: Map<string, TokenUsage>): SqliteLogBatch {
  return {
    rows: entries.map((entry) => logRowValues(entry, ENCODE)),
    usage: [...usage].map(([tokenId, { tokens, usd, lastUsedAt }]) => [tokenId, tokens, usd, sqliteDate(lastUsedAt)]),
  };
}

/** Prepared once per connection: inserts the rows and adds the usage to each token, in one transaction. */
export function prepareLogWrites(database: Database.Database): (batch: SqliteLogBatch) => void {
  const insert = database.prepare(`INSERT INTO "RequestLog" (${LOG_COLUMNS.map((column) => `"${column}"`).join(", ")}) VALUES (${LOG_COLUMNS.map(() => "?").join(", ")})`);
  const addUsage = database.prepare(`UPDATE "Token" SET "usedTokens" = "usedTokens" + ?, "usedUsd" = "usedUsd" + ?, "lastUsedAt" = ? WHERE "id" = ?`);
  return database.transaction(({ rows, usage }: SqliteLogBatch) => {
    for (const row of rows) insert.run(...row);
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

// What a swept row spent, per subject, UTC day and served model: once for its token, once
// for its user (a user's limits bind every token they own); rows of neither count toward no
// quota and are not rolled up.
const ROLL_UP = `
  WITH batch AS (
    SELECT "tokenId", "userId", substr("createdAt", 1, 10) || 'T00:00:00.000+00:00' AS day, COALESCE("servedModel", "model", '') AS model,
           ("channelId" IS NOT NULL OR "cacheStatus" IS 'hit') AS requests, "promptTokens" + "completionTokens" AS tokens, "costUsd" AS usd
      FROM "RequestLog" WHERE rowid IN (SELECT rowid FROM "RequestLog" WHERE "createdAt" < ? ORDER BY "createdAt" LIMIT ?)),
  subjects AS (
    SELECT 'token' AS kind, "tokenId" AS id, day, model, requests, tokens, usd FROM batch WHERE "tokenId" IS NOT NULL
    UNION ALL
    SELECT 'user', "userId", day, model, requests, tokens, usd FROM batch WHERE "userId" IS NOT NULL)
  INSERT INTO "UsageRollup" ("subjectKind", "subjectId", "day", "model", "requests", "tokens", "usd")
  SELECT kind, id, day, model, SUM(requests), SUM(tokens), SUM(usd) FROM subjects WHERE true
   GROUP BY 1, 2, 3, 4
  ON CONFLICT ("subjectKind", "subjectId", "day", "model") DO UPDATE SET
    "requests" = "requests" + excluded."requests", "tokens" = "tokens" + excluded."tokens", "usd" = "usd" + excluded."usd"`;
const DELETE_BATCH = `DELETE FROM "RequestLog" WHERE rowid IN (SELECT rowid FROM "RequestLog" WHERE "createdAt" < ? ORDER BY "createdAt" LIMIT ?)`;

/** Prepared once per connection: rolls up, then deletes, up to `limit` rows older than `before`, in one transaction. */
export function prepareLogSweep(database: Database.Database): (before: string, limit: number) => number {
  const rollUp = database.prepare(ROLL_UP);
  const remove = database.prepare(DELETE_BATCH);
  return database.transaction((before: string, limit: number) => {
    rollUp.run(before, limit);
    return remove.run(before, limit).changes;
  });
}
