import type pg from "pg";
import { LOG_COLUMNS, type LogBatch, logRowValues, type LoggedSubject, type RequestLogStore, type Usage, type UsageGroup, type UsageQuery } from "@/lib/usage/request-log-store";
import { totalsOf } from "@/lib/usage/request-log-writer";
import { daysOf, rollUp, type StoredRow, USAGE_HOUR_KEYS, USAGE_HOUR_SUMS, type UsageHourRow } from "@/lib/usage/usage-hours";
import { BACKFILL_MARK, hourRowValues, type RollupTable, upsertHoursSql, usageGroupOf, usageQuerySql } from "./usage-hour-sql";

// Prisma keeps UTC in "timestamp(3)" (without time zone) columns. Dates go as UTC text (PostgreSQL
// drops the "Z" when it casts to timestamp) and come back read as UTC, so the rows agree with
// Prisma's whatever the process's time zone; node-pg's default is the local time both ways.
const utc = (date: Date) => date.toISOString();
const TIMESTAMP_OID = 1114;
const ENCODE = { date: utc, boolean: (value: boolean) => value };
const COLUMN_LIST = LOG_COLUMNS.map((column) => `"${column}"`).join(", ");
// PostgreSQL allows 65,535 bind parameters per statement.
const ROWS_PER_INSERT = Math.floor(60_000 / LOG_COLUMNS.length);
const HOURS_PER_UPSERT = Math.floor(60_000 / (USAGE_HOUR_KEYS.length + 1 + USAGE_HOUR_SUMS.length));

/** node-pg's type parsers, with "timestamp" read as UTC (for a client or pool's `types`). */
export function utcTimestamps(pg: typeof import("pg").default) {
  return {
    getTypeParser: ((oid: number, format?: "text" | "binary") =>
      oid === TIMESTAMP_OID ? (text: string) => new Date(`${text.replace(" ", "T")}Z`) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
  };
}

/** Batched log writes as multi-row inserts on a small pg pool of its own. */
export class PostgresRequestLogStore implements RequestLogStore {
  private constructor(private readonly pool: pg.Pool) {
    this.pool.on("error", () => undefined); // an idle client's error is retried on next use
  }

  /** `pg` is imported here, so a SQLite deployment never loads it. */
  static async open(url: string): Promise<PostgresRequestLogStore> {
    const { default: pg } = await import("pg");
    return new PostgresRequestLogStore(new pg.Pool({ connectionString: url, max: 4, types: utcTimestamps(pg) }));
  }

  async writeBatch({ rows: entries, hours, endUserHours, usage }: LogBatch): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN");
      let inserted = entries;
      for (let start = 0; start < entries.length; start += ROWS_PER_INSERT) {
        const rows = entries.slice(start, start + ROWS_PER_INSERT);
        const values: unknown[] = [];
        const tuples = rows.map((entry) => {
          const offset = values.length;
          values.push(...logRowValues(entry, ENCODE));
          return `(${LOG_COLUMNS.map((_, index) => `$${offset + index + 1}`).join(", ")})`;
        });
        // A batch written again after a commit whose answer was lost: its rows are there, and
        // only the ones that were not are added to the totals below.
        const result = await client.query<{ id: string }>(
          `INSERT INTO "RequestLog" (${COLUMN_LIST}) VALUES ${tuples.join(", ")} ON CONFLICT ("id") DO NOTHING RETURNING "id"`,
          values,
        );
        if (result.rows.length < rows.length) {
          const fresh = new Set(result.rows.map((row) => row.id));
          inserted = inserted.filter((entry) => !rows.includes(entry) || fresh.has(entry.id));
        }
      }
      const totals = inserted === entries ? { hours, endUserHours, usage } : totalsOf(inserted);
      await addRollups(client, totals.hours);
      await addRollups(client, totals.endUserHours, "EndUserHour", "EndUserDay");
      for (const [tokenId, { tokens, usd, lastUsedAt }] of totals.usage) {
        await client.query(
          `UPDATE "Token" SET "usedTokens" = "usedTokens" + $1, "usedUsd" = "usedUsd" + $2,
             "lastUsedAt" = GREATEST(COALESCE("lastUsedAt", $3), $3) WHERE "id" = $4`,
          [tokens, usd, utc(lastUsedAt), tokenId],
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
    const { sql, params } = usageQuerySql("postgresql", query, utc);
    const { rows } = await this.pool.query<Record<string, unknown>>(sql, params);
    return rows.flatMap((row) => usageGroupOf(row, query) ?? []);
  }

  async backfillHours(limit: number): Promise<boolean> {
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN");
      // The mark's row lock makes two processes take turns, each batch once.
      const mark = await client.query<{ value: string }>(`SELECT "value" FROM "Setting" WHERE "key" = $1 FOR UPDATE`, [BACKFILL_MARK]);
      const value = mark.rows[0]?.value;
      if (value === undefined) {
        await client.query("COMMIT");
        return false;
      }
      const { before, after } = JSON.parse(value) as { before: string; after: [string, string] | null };
      const { rows } = await client.query<StoredRow & { createdAt: Date; id: string }>(
        `SELECT "id", "createdAt", "tokenId", "userId", "model", "servedModel", "channelId", "status", "errorMessage", "promptTokens", "completionTokens",
                "cachedTokens", "reasoningTokens", "costUsd", "cacheStatus", "cacheSavedUsd", "latencyMs", "firstTokenMs"
           FROM "RequestLog" WHERE "createdAt" < $1 AND ($2::timestamp IS NULL OR ("createdAt", "id") > ($2::timestamp, $3::text))
          ORDER BY "createdAt", "id" LIMIT $4`,
        [before, after?.[0] ?? null, after?.[1] ?? null, limit],
      );
      await addRollups(
        client,
        rollUp(rows, (row) => row.createdAt.getTime()),
      );
      const more = rows.length === limit;
      if (more) {
        const last = rows.at(-1)!;
        await client.query(`UPDATE "Setting" SET "value" = $1 WHERE "key" = $2`, [JSON.stringify({ before, after: [last.createdAt.toISOString(), last.id] }), BACKFILL_MARK]);
      } else {
        await client.query(`DELETE FROM "Setting" WHERE "key" = $1`, [BACKFILL_MARK]);
      }
      await client.query("COMMIT");
      return more;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async sweepBefore(before: Date, limit: number): Promise<number> {
    // Their usage is in the hourly rollups already; nothing goes while old rows wait for the
    // backfill. Rows another writer holds are skipped, not waited for.
    const result = await this.pool.query(
      `DELETE FROM "RequestLog" WHERE NOT EXISTS (SELECT 1 FROM "Setting" WHERE "key" = $3) AND "id" IN (
         SELECT "id" FROM "RequestLog" WHERE "createdAt" < $1 ORDER BY "createdAt" LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [utc(before), limit, BACKFILL_MARK],
    );
    return result.rowCount ?? 0;
  }

  /** About how many rows the log holds: the planner's estimate (an exact count reads them all). */
  async countRows(): Promise<number> {
    const { rows } = await this.pool.query<{ estimate: number }>(`SELECT reltuples::bigint AS estimate FROM pg_class WHERE oid = '"RequestLog"'::regclass`);
    const estimate = Number(rows[0]?.estimate ?? -1);
    if (estimate >= 0) return estimate;
    // Never analyzed yet: a small table, counted.
    const counted = await this.pool.query<{ count: string }>(`SELECT COUNT(*) AS count FROM "RequestLog"`);
    return Number(counted.rows[0]?.count ?? 0);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

/** Adds hour rows to the hourly rollups and their days to the daily ones (hours first: every writer locks in one order). */
async function addRollups(client: pg.PoolClient, hours: UsageHourRow[], hourTable: RollupTable = "UsageHour", dayTable: RollupTable = "UsageDay"): Promise<void> {
  for (const [table, rows] of [
    [hourTable, hours],
    [dayTable, daysOf(hours)],
  ] as const) {
    for (let start = 0; start < rows.length; start += HOURS_PER_UPSERT) {
      const slice = rows.slice(start, start + HOURS_PER_UPSERT);
      await client.query(
        upsertHoursSql("postgresql", slice.length, table),
        slice.flatMap((row) => hourRowValues(row, utc, table)),
      );
    }
  }
}
