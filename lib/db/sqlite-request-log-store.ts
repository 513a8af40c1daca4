import Database from "better-sqlite3";
import type { RequestLogEntry } from "@/lib/usage/request-log-entry";
import type { RequestLogStore } from "@/lib/usage/request-log-store";

const COLUMNS = [
  "id", "createdAt", "endpoint", "clientFormat", "method", "tokenId", "userId", "channelId", "model", "upstreamModel",
  "status", "stream", "promptTokens", "completionTokens", "cachedTokens", "reasoningTokens", "usageEstimated",
  "latencyMs", "firstTokenMs", "errorMessage", "warnings",
] as const;

// Dates as the Prisma SQLite adapter writes them, so both read the same rows.
const sqliteDate = (date: Date) => date.toISOString().replace("Z", "+00:00");

/**
 * Batched log writes on their own connection with prepared statements: the usage log
 * is the one write on every request, and going through the ORM per row cost ~40% of
 * the gateway's CPU under load (see scripts/bench.ts).
 */
export class SqliteRequestLogStore implements RequestLogStore {
  private readonly database: Database.Database;
  private readonly insert: Database.Statement;
  private readonly addUsage: Database.Statement;
  private readonly write: (entries: RequestLogEntry[], usage: Map<string, { tokens: number; lastUsedAt: Date }>) => void;

  constructor(file: string) {
    this.database = new Database(file);
    this.database.pragma("journal_mode = WAL");
    this.database.pragma("busy_timeout = 5000");
    this.insert = this.database.prepare(
      `INSERT INTO "RequestLog" (${COLUMNS.map((column) => `"${column}"`).join(", ")}) VALUES (${COLUMNS.map(() => "?").join(", ")})`,
    );
    this.addUsage = this.database.prepare(
      `UPDATE "Token" SET "usedTokens" = "usedTokens" + ?, "lastUsedAt" = ? WHERE "id" = ?`,
    );
    this.write = this.database.transaction((entries, usage) => {
      for (const entry of entries) {
        this.insert.run(
          entry.id, sqliteDate(entry.createdAt), entry.endpoint, entry.clientFormat, entry.method, entry.tokenId, entry.userId,
          entry.channelId, entry.model, entry.upstreamModel, entry.status, entry.stream ? 1 : 0, entry.promptTokens,
          entry.completionTokens, entry.cachedTokens, entry.reasoningTokens, entry.usageEstimated ? 1 : 0, entry.latencyMs,
          entry.firstTokenMs, entry.errorMessage, entry.warnings ? JSON.stringify(entry.warnings) : null,
        );
      }
      for (const [tokenId, { tokens, lastUsedAt }] of usage) this.addUsage.run(tokens, sqliteDate(lastUsedAt), tokenId);
    });
  }

  async writeBatch(entries: RequestLogEntry[], usage: Map<string, { tokens: number; lastUsedAt: Date }>): Promise<void> {
    this.write(entries, usage);
  }

  async close(): Promise<void> {
    this.database.close();
  }
}
