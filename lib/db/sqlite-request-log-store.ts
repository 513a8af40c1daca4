import type Database from "better-sqlite3";
import { logger } from "@/lib/logger";
import type { RequestLogEntry } from "@/lib/usage/request-log-entry";
import type { HourlyStats, QuotaSubject, RequestLogStore, TokenUsage, Usage } from "@/lib/usage/request-log-store";
import { LogThreadUnavailable, SqliteLogThread } from "./sqlite-log-thread";
import { encodeLogBatch, openSqlite, prepareLogSweep, prepareLogWrites, sqliteDate, type SqliteLogBatch } from "./sqlite-log-writes";

/**
 * The writer thread's script, beside this module: the TypeScript source when run through
 * tsx, the compiled file beside the server bundle (dist/). A name held in a variable, so
 * bundlers that rewrite `new URL("…", import.meta.url)` leave it alone.
 */
const WORKER_SCRIPT = import.meta.url.endsWith(".ts") ? "./sqlite-log-worker.ts" : "./sqlite-log-worker.mjs";

/**
 * Batched log writes with prepared statements, on a thread of their own: the usage log is
 * the one write on every request, and its inserts, commits and WAL checkpoints (fsync)
 * would otherwise stall the event loop. Where the thread cannot start (a bundle without
 * its script), the batches are written on this connection instead.
 */
export class SqliteRequestLogStore implements RequestLogStore {
  private readonly database: Database.Database;
  private thread: SqliteLogThread | undefined;
  private writeHere: ((batch: SqliteLogBatch) => void) | undefined;
  private sweepHere: ((before: string, limit: number) => number) | undefined;
  private readonly count: Database.Statement;
  private readonly tokenUsage: Database.Statement;
  private readonly userUsage: Database.Statement;
  private readonly hourly: Database.Statement;
  private readonly hourlyForUser: Database.Statement;

  constructor(file: string, workerScript: URL = new URL(WORKER_SCRIPT, import.meta.url)) {
    this.database = openSqlite(file);
    this.thread = new SqliteLogThread(file, workerScript);
    // The rows since `since`, plus what the retention sweep rolled up of deleted ones; `models`
    // a JSON array or null (every model).
    // A row is a request when a channel took it or the response cache answered it; a refusal is not.
    const usage = (rowFilter: string, kind: string) =>
      this.database.prepare(
        `SELECT COALESCE(SUM(tokens), 0) AS tokens, COALESCE(SUM(usd), 0) AS usd, COALESCE(SUM(requests), 0) AS requests FROM (
           SELECT "promptTokens" + "completionTokens" AS tokens, "costUsd" AS usd, ("channelId" IS NOT NULL OR "cacheStatus" IS 'hit') AS requests
             FROM "RequestLog" WHERE ${rowFilter} AND "createdAt" >= :since
              AND (:models IS NULL OR COALESCE("servedModel", "model") IN (SELECT value FROM json_each(:models)))
           UNION ALL
           SELECT "tokens", "usd", "requests" FROM "UsageRollup"
            WHERE "subjectKind" = '${kind}' AND "subjectId" = :id AND "day" >= :since
              AND (:models IS NULL OR "model" IN (SELECT value FROM json_each(:models))))`,
      );
    this.tokenUsage = usage(`"tokenId" = :id`, "token");
    // A user's limits bind every token they own: their spend is every row of theirs.
    this.userUsage = usage(`"userId" = :id`, "user");
    this.count = this.database.prepare(`SELECT COUNT(*) AS count FROM "RequestLog"`);
    const hourly = (filter: string) =>
      this.database.prepare(
        `SELECT substr("createdAt", 1, 13) AS hour, COUNT(*) AS requests,
                COALESCE(SUM("promptTokens" + "completionTokens"), 0) AS tokens,
                SUM(CASE WHEN "status" >= 400 OR "errorMessage" IS NOT NULL THEN 1 ELSE 0 END) AS errors,
                COALESCE(SUM("costUsd"), 0) AS costUsd, COALESCE(SUM("latencyMs"), 0) AS latencyMs
           FROM "RequestLog" WHERE "createdAt" >= ? ${filter} GROUP BY hour ORDER BY hour`,
      );
    this.hourly = hourly("");
    this.hourlyForUser = hourly(`AND "userId" = ?`);
  }

  /** False once the writer thread could not start and batches are written here. */
  get writesOnOwnThread(): boolean {
    return this.thread !== undefined;
  }

  async writeBatch(entries: RequestLogEntry[], usage: Map<string, TokenUsage>): Promise<void> {
    const batch = encodeLogBatch(entries, usage);
    if (this.thread) {
      try {
        return await this.thread.write(batch);
      } catch (error) {
        if (!(error instanceof LogThreadUnavailable)) throw error;
        logger.warn({ err: error }, "the request log's writer thread could not start; writing on the main thread");
        this.thread = undefined;
      }
    }
    this.writeHere ??= prepareLogWrites(this.database);
    this.writeHere(batch);
  }

  async usageSince(subject: QuotaSubject, since: Date, models: readonly string[] | null = null): Promise<Usage> {
    const statement = subject.kind === "token" ? this.tokenUsage : this.userUsage;
    const row = statement.get({ id: subject.id, since: sqliteDate(since), models: models ? JSON.stringify(models) : null }) as Usage;
    return { tokens: Number(row.tokens), usd: Number(row.usd), requests: Number(row.requests) };
  }

  async sweepBefore(before: Date, limit: number): Promise<number> {
    if (this.thread) {
      try {
        return await this.thread.sweep(sqliteDate(before), limit);
      } catch (error) {
        if (!(error instanceof LogThreadUnavailable)) throw error;
        this.thread = undefined;
      }
    }
    this.sweepHere ??= prepareLogSweep(this.database);
    return this.sweepHere(sqliteDate(before), limit);
  }

  async countRows(): Promise<number> {
    return Number((this.count.get() as { count: number }).count);
  }

  async hourlyStats(since: Date, userId: string | null): Promise<HourlyStats[]> {
    const rows = (userId === null ? this.hourly.all(sqliteDate(since)) : this.hourlyForUser.all(sqliteDate(since), userId)) as {
      hour: string;
      requests: number;
      tokens: number;
      errors: number;
      costUsd: number;
      latencyMs: number;
    }[];
    return rows.map((row) => ({ ...row, hour: `${row.hour}:00:00.000Z` }));
  }

  async close(): Promise<void> {
    await this.thread?.close();
    this.database.close();
  }
}
