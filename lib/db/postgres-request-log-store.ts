import type pg from "pg";
import type { RequestLogEntry } from "@/lib/usage/request-log-entry";
import { LOG_COLUMNS, logRowValues, type HourlyStats, type QuotaSubject, type RequestLogStore, type TokenUsage, type Usage } from "@/lib/usage/request-log-store";

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

  async usageSince(subject: QuotaSubject, since: Date, models: readonly string[] | null = null): Promise<Usage> {
    // A user's limits bind every token they own: their spend is every row of theirs.
    const filter = subject.kind === "token" ? `"tokenId" = $1` : `"userId" = $1`;
    // The rows, plus what the retention sweep rolled up of deleted ones.
    // A row is a request when a channel took it or the response cache answered it; a refusal is not.
    const { rows } = await this.pool.query<{ tokens: string; usd: number; requests: string }>(
      `SELECT COALESCE(SUM(tokens), 0) AS tokens, COALESCE(SUM(usd), 0) AS usd, COALESCE(SUM(requests), 0) AS requests FROM (
         SELECT "promptTokens" + "completionTokens" AS tokens, "costUsd" AS usd, CASE WHEN "channelId" IS NOT NULL OR "cacheStatus" = 'hit' THEN 1 ELSE 0 END AS requests
           FROM "RequestLog" WHERE ${filter} AND "createdAt" >= $2 AND ($3::text[] IS NULL OR COALESCE("servedModel", "model") = ANY($3::text[]))
         UNION ALL
         SELECT "tokens", "usd", "requests" FROM "UsageRollup"
          WHERE "subjectKind" = $4 AND "subjectId" = $1 AND "day" >= $2 AND ($3::text[] IS NULL OR "model" = ANY($3::text[]))) AS spent`,
      [subject.id, since, models, subject.kind],
    );
    return { tokens: Number(rows[0]?.tokens ?? 0), usd: Number(rows[0]?.usd ?? 0), requests: Number(rows[0]?.requests ?? 0) };
  }

  async sweepBefore(before: Date, limit: number): Promise<number> {
    // One statement: the batch is deleted and rolled up together, or neither; rows another
    // writer holds are skipped, not waited for.
    const { rows } = await this.pool.query<{ deleted: string }>(
      `WITH batch AS (
         DELETE FROM "RequestLog" WHERE "id" IN (
           SELECT "id" FROM "RequestLog" WHERE "createdAt" < $1 ORDER BY "createdAt" LIMIT $2 FOR UPDATE SKIP LOCKED)
         RETURNING "tokenId", "userId", "createdAt", COALESCE("servedModel", "model") AS "model", "channelId", "cacheStatus", "promptTokens", "completionTokens", "costUsd"),
       subjects AS (
         SELECT 'token' AS kind, "tokenId" AS id, * FROM batch WHERE "tokenId" IS NOT NULL
         UNION ALL
         SELECT 'user', "userId", * FROM batch WHERE "userId" IS NOT NULL),
       rolled AS (
         INSERT INTO "UsageRollup" ("subjectKind", "subjectId", "day", "model", "requests", "tokens", "usd")
         SELECT kind, id, date_trunc('day', "createdAt"), COALESCE("model", ''),
                SUM(CASE WHEN "channelId" IS NOT NULL OR "cacheStatus" = 'hit' THEN 1 ELSE 0 END), SUM("promptTokens" + "completionTokens"), SUM("costUsd")
           FROM subjects GROUP BY 1, 2, 3, 4
         ON CONFLICT ("subjectKind", "subjectId", "day", "model") DO UPDATE SET
           "requests" = "UsageRollup"."requests" + excluded."requests", "tokens" = "UsageRollup"."tokens" + excluded."tokens",
           "usd" = "UsageRollup"."usd" + excluded."usd"
         RETURNING 1)
       SELECT COUNT(*) AS deleted FROM batch`,
      [before, limit],
    );
    return Number(rows[0]?.deleted ?? 0);
  }

  async countRows(): Promise<number> {
    const { rows } = await this.pool.query<{ count: string }>(`SELECT COUNT(*) AS count FROM "RequestLog"`);
    return Number(rows[0]?.count ?? 0);
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
