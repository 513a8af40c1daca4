import type Database from "better-sqlite3";
import { logger } from "@/lib/logger";
import type { RequestLogEntry } from "@/lib/usage/request-log-entry";
import type { HourlyStats, QuotaSubject, RequestLogStore, TokenUsage } from "@/lib/usage/request-log-store";
import { LogThreadUnavailable, SqliteLogThread } from "./sqlite-log-thread";
import { encodeLogBatch, openSqlite, prepareLogWrites, sqliteDate, type SqliteLogBatch } from "./sqlite-log-writes";

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
  private readonly tokenUsage: Database.Statement;
  private readonly userUsage: Database.Statement;
  private readonly hourly: Database.Statement;
  private readonly hourlyForUser: Database.Statement;

  constructor(file: string, workerScript: URL = new URL(WORKER_SCRIPT, import.meta.url)) {
    this.database = openSqlite(file);
    this.thread = new SqliteLogThread(file, workerScript);
    const sums = `COALESCE(SUM("promptTokens" + "completionTokens"), 0) AS tokens, COALESCE(SUM("costUsd"), 0) AS usd FROM "RequestLog"`;
    this.tokenUsage = this.database.prepare(`SELECT ${sums} WHERE "tokenId" = ? AND "createdAt" >= ?`);
    this.userUsage = this.database.prepare(`SELECT ${sums} WHERE "userId" = ? AND "tokenId" IS NULL AND "createdAt" >= ?`);
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

  async usageSince(subject: QuotaSubject, since: Date): Promise<{ tokens: number; usd: number }> {
    const statement = subject.kind === "token" ? this.tokenUsage : this.userUsage;
    const row = statement.get(subject.id, sqliteDate(since)) as { tokens: number; usd: number };
    return { tokens: Number(row.tokens), usd: Number(row.usd) };
  }

  async hourlyStats(since: Date, userId: string | null): Promise<HourlyStats[]> {
    const rows = (userId === null ? this.hourly.all(sqliteDate(since)) : this.hourlyForUser.all(sqliteDate(since), userId)) as {
      hour: string; requests: number; tokens: number; errors: number; costUsd: number; latencyMs: number;
    }[];
    return rows.map((row) => ({ ...row, hour: `${row.hour}:00:00.000Z` }));
  }

  async close(): Promise<void> {
    await this.thread?.close();
    this.database.close();
  }
}
