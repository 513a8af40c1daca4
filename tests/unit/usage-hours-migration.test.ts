import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import Database from "better-sqlite3";
import { listMigrations, migrateSqlite } from "@/lib/db/migrate";
import { SqliteRequestLogStore } from "@/lib/db/sqlite-request-log-store";
import { sqliteDate } from "@/lib/db/sqlite-log-writes";
import { LOG_COLUMNS, logRowValues } from "@/lib/usage/request-log-store";
import { mixedEntries } from "../helpers/usage-rollup-contract";

// Upgrading a database from before the hourly rollups: what the retention sweep had rolled up
// of deleted rows becomes hours (a user's share of it not counted twice), the rows still in
// the log are rolled up by the background backfill, and quotas read the same totals as before.

const directory = fs.mkdtempSync(path.join(os.tmpdir(), "gateway-hours-migration-"));
after(() => fs.rmSync(directory, { recursive: true, force: true }));

/** A database migrated up to, not including, the rollups' migration. */
function databaseBeforeRollups(file: string): Database.Database {
  const database = new Database(file);
  database.exec(`CREATE TABLE "_gateway_migrations" ("name" TEXT PRIMARY KEY, "appliedAt" TEXT NOT NULL)`);
  for (const migration of listMigrations("sqlite")) {
    if (migration.name.endsWith("_usage_hours")) break;
    database.exec(migration.sql);
    database.prepare(`INSERT INTO "_gateway_migrations" VALUES (?, ?)`).run(migration.name, new Date().toISOString());
  }
  return database;
}

describe("the migration to hourly rollups", () => {
  test("folds in the retention rollups once and backfills the rows in the log", async () => {
    const file = path.join(directory, "old.db");
    const database = databaseBeforeRollups(file);
    const now = sqliteDate(new Date());
    database.prepare(`INSERT INTO "User" ("id", "email", "createdAt", "updatedAt") VALUES ('user_1', 'a@b.c', ?, ?)`).run(now, now);
    for (const token of ["tok_0", "tok_1"]) {
      database
        .prepare(`INSERT INTO "Token" ("id", "name", "keyHash", "keyPrefix", "userId", "createdAt", "updatedAt") VALUES (?, 't', ?, 'sk-', 'user_1', ?, ?)`)
        .run(token, token, now, now);
    }
    const day = "2026-09-01T00:00:00.000+00:00";
    const rollup = database.prepare(`INSERT INTO "UsageRollup" VALUES (?, ?, ?, ?, ?, ?, ?)`);
    rollup.run("token", "tok_0", day, "m", 10, 1000, 1.5);
    rollup.run("token", "tok_1", day, "m", 5, 500, 0.5);
    // The user's rollup held their tokens' rows (15 requests) and 2 of their console sessions.
    rollup.run("user", "user_1", day, "m", 17, 1700, 2.25);
    // A deleted token's rollup keeps counting toward nobody's user.
    rollup.run("token", "tok_gone", day, "m", 1, 10, 0.01);
    // The columns of that time: the MCP ones and the end user (last in LOG_COLUMNS) came in later migrations.
    const columns = LOG_COLUMNS.filter((column) => column !== "mcpServer" && column !== "mcpTool" && column !== "endUser");
    const insert = database.prepare(`INSERT INTO "RequestLog" (${columns.map((column) => `"${column}"`).join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`);
    const rows = mixedEntries(2000, "old", 3);
    for (const row of rows) insert.run(...logRowValues(row, { date: sqliteDate, boolean: (value) => (value ? 1 : 0) }).slice(0, columns.length));
    database.close();

    // The rollups' migration runs, then every later one.
    const names = listMigrations("sqlite").map((migration) => migration.name);
    assert.deepEqual(migrateSqlite(file), names.slice(names.findIndex((name) => name.endsWith("_usage_hours"))));
    const store = new SqliteRequestLogStore(file);
    try {
      const user = { kind: "user", id: "user_1" } as const;
      // Before the backfill: only what the sweep had rolled up.
      assert.deepEqual(await store.usageSince({ kind: "token", id: "tok_0" }, new Date(0)), { tokens: 1000, usd: 1.5, requests: 10 });
      assert.deepEqual(await store.usageSince(user, new Date(0)), { tokens: 1700, usd: 2.25, requests: 17 }, "the user's share is not counted twice");
      assert.equal(await store.sweepBefore(new Date("2030-01-01T00:00:00Z"), 100), 0, "the sweep waits for the backfill");
      let batches = 0;
      while (await store.backfillHours(300)) batches += 1;
      assert.equal(batches, 6);
      const fromRows = (token: string) => rows.filter((row) => row.tokenId === token);
      const spent = (list: typeof rows) => ({
        tokens: list.reduce((sum, row) => sum + row.promptTokens + row.completionTokens, 0),
        requests: list.filter((row) => row.channelId !== null || row.cacheStatus === "hit").length,
      });
      const tok0 = await store.usageSince({ kind: "token", id: "tok_0" }, new Date(0));
      assert.deepEqual({ tokens: tok0.tokens, requests: tok0.requests }, { tokens: 1000 + spent(fromRows("tok_0")).tokens, requests: 10 + spent(fromRows("tok_0")).requests });
      const userRows = rows.filter((row) => row.userId === "user_1");
      const userSpent = await store.usageSince(user, new Date(0));
      assert.deepEqual({ tokens: userSpent.tokens, requests: userSpent.requests }, { tokens: 1700 + spent(userRows).tokens, requests: 17 + spent(userRows).requests });
      assert.ok((await store.sweepBefore(new Date("2030-01-01T00:00:00Z"), 5000)) > 0, "the sweep deletes once the backfill is done");
      assert.deepEqual(await store.usageSince(user, new Date(0)), userSpent, "and the totals stay");
    } finally {
      await store.close();
    }
  });
});
