import { describe, test } from "node:test";
import pg from "pg";
import { migrate } from "@/lib/db/migrate";
import { PostgresRequestLogStore, utcTimestamps } from "@/lib/db/postgres-request-log-store";
import { BACKFILL_MARK } from "@/lib/db/usage-hour-sql";
import { LOG_COLUMNS, logRowValues } from "@/lib/usage/request-log-store";
import { createTestDatabase, sharedServices } from "../helpers/start-gateway";
import { type RawRow, rollupContract } from "../helpers/usage-rollup-contract";

// The hourly rollups on PostgreSQL, with two stores (two pools, as two processes have)
// writing at once: the same contract as SQLite's (tests/unit/sqlite-log-store.test.ts).

describe("the PostgreSQL store's hourly rollups", () => {
  test("equal the raw rows' sums after a soak by two writers, a failed batch, a repeated batch, a sweep and a backfill", async () => {
    const services = sharedServices();
    if (!services) throw new Error("This suite needs TEST_POSTGRES_URL and TEST_REDIS_URL: run it through `npm test`.");
    const url = await createTestDatabase(services.postgresUrl);
    await migrate({ kind: "postgresql", url });
    const [store, second] = await Promise.all([PostgresRequestLogStore.open(url), PostgresRequestLogStore.open(url)]);
    const client = new pg.Client({ connectionString: url, types: utcTimestamps(pg) });
    await client.connect();
    try {
      await rollupContract({
        store,
        second,
        rawRows: async () => (await client.query<RawRow>(`SELECT * FROM "RequestLog"`)).rows,
        insertOldRows: async (rows) => {
          const { rows: last } = await client.query<{ createdAt: Date; id: string }>(`SELECT "createdAt", "id" FROM "RequestLog" ORDER BY "createdAt" DESC, "id" DESC LIMIT 1`);
          for (const row of rows) {
            await client.query(
              `INSERT INTO "RequestLog" (${LOG_COLUMNS.map((column) => `"${column}"`).join(", ")}) VALUES (${LOG_COLUMNS.map((_, index) => `$${index + 1}`).join(", ")})`,
              logRowValues(row, { date: (date) => date.toISOString(), boolean: (value) => value }),
            );
          }
          const mark = { before: "2100-01-01T00:00:00.000Z", after: last[0] ? [last[0].createdAt.toISOString(), last[0].id] : null };
          await client.query(`INSERT INTO "Setting" ("key", "value", "updatedAt") VALUES ($1, $2, now())`, [BACKFILL_MARK, JSON.stringify(mark)]);
        },
      });
    } finally {
      await client.end();
      await Promise.all([store.close(), second.close()]);
    }
  });
});
