import type pg from "pg";
import type { RequestLogEntry } from "@/lib/usage/request-log-entry";
import {
  LOG_COLUMNS,
  logRowValues,
  type HourlyStats,
  type QuotaSubject,
  type RequestLogStore,
  type TokenUsage,
} from "@/lib/usage/request-log-store";

const ENCODE = { date: (date: Date) => date, boolean: (value: boolean) => value };
const COLUMN_LIST = LOG_COLUMNS.map((column) => `"${column}"`).join(", ");
// PostgreSQL allows 65,535 bind parameters per statement.
const ROWS_PER_INSERT = Math.floor(60_000 / LOG_COLUMNS.length);

/** Batched log writes as multi-row inserts on a small pg pool of its own. */
export class PostgresRequestLogStore implements RequestLogStore {
  private constructor(private readonly pool: pg.Pool) {
    this.pool.on("error", () => undefined); // an idle client's error is retried on next use
  }

  /** `pg` is imported here, so a SQLite deployment never loads it. */
  static async open(url: string): Promise<PostgresRequestLogStore> {
    const { default: pg } = await import("pg");
    return new PostgresRequestLogStore(new pg.Pool({ connectionString: url, max: 4 }));
  }

  async writeBatch(entries: RequestLogEntry[], usage: Map<string, TokenUsage>): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN");
      for (let start = 0; start < entries.length; start += ROWS_PER_INSERT) {
        const rows = entries.slice(start, start + ROWS_PER_INSERT);
        const values: unknown[] = [];
        const tuples = rows.map((entry) => {
          const offset = values.length;
          values.push(...logRowValues(entry, ENCODE));
          return `(${LOG_COLUMNS.map((_, index) => `$${offset + index + 1}`).join(", ")})`;
        });
        await client.query(`INSERT INTO "RequestLog" (${COLUMN_LIST}) VALUES ${tuples.join(", ")}`, values);
      }
      for (const [tokenId, { tokens, usd, lastUsedAt }] of usage) {
        await client.query(
          `UPDATE "Token" SET "usedTokens" = "usedTokens" + $1, "usedUsd" = "usedUsd" + $2,
             "lastUsedAt" = GREATEST(COALESCE("lastUsedAt", $3), $3) WHERE "id" = $4`,
          [tokens, usd, lastUsedAt, tokenId],
        );
      }
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async usageSince(subject: QuotaSubject, since: Date): Promise<{ tokens: number; usd: number }> {
    const filter = subject.kind === "token" ? `"tokenId" = $1` : `"userId" = $1 AND "tokenId" IS NULL`;
    const { rows } = await this.pool.query<{ tokens: string; usd: number }>(
      `SELECT COALESCE(SUM("promptTokens" + "completionTokens"), 0) AS tokens, COALESCE(SUM("costUsd"), 0) AS usd
         FROM "RequestLog" WHERE ${filter} AND "createdAt" >= $2`,
      [subject.id, since],
    );
    return { tokens: Number(rows[0]?.tokens ?? 0), usd: Number(rows[0]?.usd ?? 0) };
  }

  async hourlyStats(since: Date, userId: string | null): Promise<HourlyStats[]> {
    const { rows } = await this.pool.query<Record<string, string | number | Date>>(
      `SELECT date_trunc('hour', "createdAt") AS hour, COUNT(*) AS requests,
              COALESCE(SUM("promptTokens" + "completionTokens"), 0) AS tokens,
              SUM(CASE WHEN "status" >= 400 OR "errorMessage" IS NOT NULL THEN 1 ELSE 0 END) AS errors,
              COALESCE(SUM("costUsd"), 0) AS "costUsd", COALESCE(SUM("latencyMs"), 0) AS "latencyMs"
         FROM "RequestLog" WHERE "createdAt" >= $1 ${userId === null ? "" : `AND "userId" = $2`}
         GROUP BY 1 ORDER BY 1`,
      userId === null ? [since] : [since, userId],
    );
    return rows.map((row) => ({
      hour: new Date(row.hour as Date).toISOString(),
      requests: Number(row.requests),
      tokens: Number(row.tokens),
      errors: Number(row.errors),
      costUsd: Number(row.costUsd),
      latencyMs: Number(row.latencyMs),
    }));
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
