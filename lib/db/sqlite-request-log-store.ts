import Database from "better-sqlite3";
import type { RequestLogEntry } from "@/lib/usage/request-log-entry";
import {
  LOG_COLUMNS,
  logRowValues,
  type HourlyStats,
  type QuotaSubject,
  type RequestLogStore,
  type TokenUsage,
} from "@/lib/usage/request-log-store";

// Dates as the Prisma SQLite adapter writes them, so both read the same rows.
const sqliteDate = (date: Date) => date.toISOString().replace("Z", "+00:00");
const ENCODE = { date: sqliteDate, boolean: (value: boolean) => (value ? 1 : 0) };

/**
 * Batched log writes on their own connection with prepared statements: the usage log
 * is the one write on every request, and going through the ORM per row cost ~40% of
 * the gateway's CPU under load (see scripts/bench.ts).
 */
export class SqliteRequestLogStore implements RequestLogStore {
  private readonly database: Database.Database;
  private readonly write: (entries: RequestLogEntry[], usage: Map<string, TokenUsage>) => void;
  private readonly tokenUsage: Database.Statement;
  private readonly userUsage: Database.Statement;
  private readonly hourly: Database.Statement;
  private readonly hourlyForUser: Database.Statement;

  constructor(file: string) {
    this.database = new Database(file);
    this.database.pragma("journal_mode = WAL");
    this.database.pragma("busy_timeout = 5000");
    const insert = this.database.prepare(
      `INSERT INTO "RequestLog" (${LOG_COLUMNS.map((column) => `"${column}"`).join(", ")}) VALUES (${LOG_COLUMNS.map(() => "?").join(", ")})`,
    );
    const addUsage = this.database.prepare(
      `UPDATE "Token" SET "usedTokens" = "usedTokens" + ?, "usedUsd" = "usedUsd" + ?, "lastUsedAt" = ? WHERE "id" = ?`,
    );
    this.write = this.database.transaction((entries: RequestLogEntry[], usage: Map<string, TokenUsage>) => {
      for (const entry of entries) insert.run(...logRowValues(entry, ENCODE));
      for (const [tokenId, { tokens, usd, lastUsedAt }] of usage) addUsage.run(tokens, usd, sqliteDate(lastUsedAt), tokenId);
    });
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

  async writeBatch(entries: RequestLogEntry[], usage: Map<string, TokenUsage>): Promise<void> {
    this.write(entries, usage);
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
    this.database.close();
  }
}
