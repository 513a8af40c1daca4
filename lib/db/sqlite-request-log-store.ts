import type Database from "better-sqlite3";
import { logger } from "@/lib/logger";
import type { LogBatch, LoggedSubject, RequestLogStore, Usage, UsageGroup, UsageQuery } from "@/lib/usage/request-log-store";
import { LogThreadUnavailable, SqliteLogThread } from "./sqlite-log-thread";
import { encodeLogBatch, openSqlite, prepareHourBackfill, prepareLogSweep, prepareLogWrites, sqliteDate, type SqliteLogBatch } from "./sqlite-log-writes";
import { usageGroupOf, usageQuerySql } from "./usage-hour-sql";

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
  private backfillHere: ((limit: number) => boolean) | undefined;
  private readonly count: Database.Statement;
  /** Grouped reads, prepared once per distinct SQL text (a handful: one per view). */
  private readonly reads = new Map<string, Database.Statement>();

  constructor(file: string, workerScript: URL = new URL(WORKER_SCRIPT, import.meta.url)) {
    this.database = openSqlite(file);
    this.thread = new SqliteLogThread(file, workerScript);
    // Rows are deleted oldest first (retention), so the rowids left are about contiguous. Two
    // subqueries: each is one seek, where MAX and MIN together scan the whole table.
    this.count = this.database.prepare(`SELECT COALESCE((SELECT MAX(rowid) FROM "RequestLog") - (SELECT MIN(rowid) FROM "RequestLog") + 1, 0) AS count`);
  }

  /** False once the writer thread could not start and batches are written here. */
  get writesOnOwnThread(): boolean {
    return this.thread !== undefined;
  }

  async writeBatch(batch: LogBatch): Promise<void> {
    const encoded = encodeLogBatch(batch);
    if (await this.onThread((thread) => thread.write(encoded))) return;
    this.writeHere ??= prepareLogWrites(this.database);
    this.writeHere(encoded);
  }

  async usageSince(subject: LoggedSubject, since: Date, models: readonly string[] | null = null): Promise<Usage> {
    const [total] = await this.usage({
      from: since,
      groupBy: [],
      ...(subject.kind === "token" ? { tokenIds: [subject.id] } : { userId: subject.id }),
      ...(models ? { models } : {}),
    });
    return { tokens: (total?.promptTokens ?? 0) + (total?.completionTokens ?? 0), usd: total?.costUsd ?? 0, requests: total?.charged ?? 0 };
  }

  async usage(query: UsageQuery): Promise<UsageGroup[]> {
    const { sql, params } = usageQuerySql("sqlite", query, sqliteDate);
    let statement = this.reads.get(sql);
    if (!statement) {
      statement = this.database.prepare(sql);
      this.reads.set(sql, statement);
    }
    return (statement.all(...params) as Record<string, unknown>[]).flatMap((row) => usageGroupOf(row, query) ?? []);
  }

  async backfillHours(limit: number): Promise<boolean> {
    const onThread = await this.onThread((thread) => thread.backfill(limit));
    if (onThread) return onThread.value;
    this.backfillHere ??= prepareHourBackfill(this.database);
    return this.backfillHere(limit);
  }

  async sweepBefore(before: Date, limit: number): Promise<number> {
    const onThread = await this.onThread((thread) => thread.sweep(sqliteDate(before), limit));
    if (onThread) return onThread.value;
    this.sweepHere ??= prepareLogSweep(this.database);
    return this.sweepHere(sqliteDate(before), limit);
  }

  /** About how many rows the log holds (counting millions of rows takes a while). */
  async countRows(): Promise<number> {
    return Number((this.count.get() as { count: number }).count);
  }

  async close(): Promise<void> {
    await this.thread?.close();
    this.database.close();
  }

  /** Runs `work` on the writer thread; undefined when the thread cannot start (then work runs here from now on). */
  private async onThread<T>(work: (thread: SqliteLogThread) => Promise<T>): Promise<{ value: T } | undefined> {
    if (!this.thread) return undefined;
    try {
      return { value: await work(this.thread) };
    } catch (error) {
      if (!(error instanceof LogThreadUnavailable)) throw error;
      if (this.thread) logger.warn({ err: error }, "the request log's writer thread could not start; writing on the main thread");
      this.thread = undefined;
      return undefined;
    }
  }
}
