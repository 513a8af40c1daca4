import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import Database from "better-sqlite3";
import { migrateSqlite } from "@/lib/db/migrate";
import { SqliteRequestLogStore } from "@/lib/db/sqlite-request-log-store";
import type { RequestLogEntry } from "@/lib/usage/request-log-entry";
import type { LogBatch, TokenUsage } from "@/lib/usage/request-log-store";
import { totalsOf } from "@/lib/usage/request-log-writer";
import { sqliteDate } from "@/lib/db/sqlite-log-writes";
import { BACKFILL_MARK } from "@/lib/db/usage-hour-sql";
import { LOG_COLUMNS, logRowValues } from "@/lib/usage/request-log-store";
import { type RawRow, rollupContract } from "../helpers/usage-rollup-contract";

const directory = fs.mkdtempSync(path.join(os.tmpdir(), "gateway-log-store-"));
after(() => fs.rmSync(directory, { recursive: true, force: true }));

let fileCount = 0;
function freshDatabase(): string {
  const file = path.join(directory, `log-${(fileCount += 1)}.db`);
  migrateSqlite(file);
  const database = new Database(file);
  database.prepare(`INSERT INTO "Token" ("id", "name", "keyHash", "keyPrefix", "createdAt", "updatedAt") VALUES ('tok_1', 't', 'h', 'sk-', '2026-01-01', '2026-01-01')`).run();
  database.close();
  return file;
}

function entry(id: string, overrides: Partial<RequestLogEntry> = {}): RequestLogEntry {
  return {
    id,
    createdAt: new Date("2026-11-23T10:15:00Z"),
    endpoint: "/v1/chat/completions",
    clientFormat: "openai",
    method: "POST",
    tokenId: "tok_1",
    userId: null,
    channelId: null,
    model: "m",
    upstreamModel: "m",
    status: 200,
    stream: true,
    promptTokens: 7,
    completionTokens: 5,
    cachedTokens: 0,
    reasoningTokens: 0,
    usageEstimated: false,
    latencyMs: 12,
    firstTokenMs: 3,
    costUsd: 0.25,
    errorMessage: null,
    warnings: ["dropped seed"],
    attempts: null,
    cacheStatus: null,
    cacheSavedUsd: 0,
    ...overrides,
  };
}

const batch = (rows: RequestLogEntry[], usage: Map<string, TokenUsage>): LogBatch => ({ rows, hours: totalsOf(rows).hours, endUserHours: totalsOf(rows).endUserHours, usage });
const usage = (tokens: number, usd: number): Map<string, TokenUsage> => new Map([["tok_1", { tokens, usd, lastUsedAt: new Date("2026-11-23T10:15:00Z") }]]);

function readBack(file: string) {
  const database = new Database(file, { readonly: true });
  try {
    return {
      rows: database.prepare(`SELECT "id", "stream", "warnings", "createdAt" FROM "RequestLog" ORDER BY "id"`).all(),
      token: database.prepare(`SELECT "usedTokens", "usedUsd" FROM "Token" WHERE "id" = 'tok_1'`).get(),
    };
  } finally {
    database.close();
  }
}

describe("the SQLite request log store", () => {
  test("writes rows and token usage on its writer thread, and the readers see them", async () => {
    const file = freshDatabase();
    const store = new SqliteRequestLogStore(file);
    try {
      await Promise.all([store.writeBatch(batch([entry("req_a"), entry("req_b")], usage(24, 0.5))), store.writeBatch(batch([entry("req_c")], usage(12, 0.25)))]);
      assert.equal(store.writesOnOwnThread, true);
      assert.deepEqual(await store.usageSince({ kind: "token", id: "tok_1" }, new Date("2026-11-23T00:00:00Z")), { tokens: 36, usd: 0.75, requests: 0 });
      const [hour] = await store.usage({ from: new Date("2026-11-23T00:00:00Z"), groupBy: ["hour"] });
      assert.equal(hour?.requests, 3);
      assert.equal(hour?.hour, "2026-11-23T10:00:00.000Z");
    } finally {
      await store.close();
    }
    const { rows, token } = readBack(file);
    assert.deepEqual(
      rows,
      ["req_a", "req_b", "req_c"].map((id) => ({ id, stream: 1, warnings: '["dropped seed"]', createdAt: "2026-11-23T10:15:00.000+00:00" })),
    );
    assert.deepEqual(token, { usedTokens: 36, usedUsd: 0.75 });
  });

  test("a batch that fails is refused as a whole, and the thread goes on with the next", async () => {
    const file = freshDatabase();
    const store = new SqliteRequestLogStore(file);
    try {
      await store.writeBatch(batch([entry("req_a")], usage(12, 0.25)));
      await assert.rejects(store.writeBatch(batch([entry("req_b"), entry("req_a")], usage(24, 0.5))), /request log write failed: UNIQUE constraint/);
      await store.writeBatch(batch([entry("req_b")], usage(12, 0.25)));
    } finally {
      await store.close();
    }
    const { rows, token } = readBack(file);
    assert.deepEqual(
      (rows as { id: string }[]).map((row) => row.id),
      ["req_a", "req_b"],
    );
    assert.deepEqual(token, { usedTokens: 24, usedUsd: 0.5 });
  });

  test("without its thread's script it still writes, on the caller's thread", async () => {
    const file = freshDatabase();
    const store = new SqliteRequestLogStore(file, new URL("./no-such-worker.mjs", import.meta.url));
    try {
      await store.writeBatch(batch([entry("req_a")], usage(12, 0.25)));
      await store.writeBatch(batch([entry("req_b")], usage(12, 0.25)));
      assert.equal(store.writesOnOwnThread, false);
    } finally {
      await store.close();
    }
    assert.deepEqual(
      (readBack(file).rows as { id: string }[]).map((row) => row.id),
      ["req_a", "req_b"],
    );
  });

  test("the retention sweep deletes rows in small batches and no total: usage since any hour is unchanged", async () => {
    const file = freshDatabase();
    for (const worker of [undefined, new URL("./no-such-worker.mjs", import.meta.url)]) {
      const store = new SqliteRequestLogStore(file, worker);
      const day = (date: string, id: string, fields: Partial<RequestLogEntry> = {}) => entry(id, { createdAt: new Date(date), channelId: "c", ...fields });
      const token = { kind: "token", id: "tok_1" } as const;
      try {
        await store.writeBatch(
          batch(
            [
              day("2026-11-20T10:00:00Z", `${worker ? "b" : "a"}1`),
              day("2026-11-20T23:00:00Z", `${worker ? "b" : "a"}2`, { model: "other" }),
              day("2026-11-21T01:00:00Z", `${worker ? "b" : "a"}3`),
              day("2026-11-23T09:00:00Z", `${worker ? "b" : "a"}4`),
              day("2026-11-21T02:00:00Z", `${worker ? "b" : "a"}5`, { tokenId: null, userId: "user_1", channelId: null }),
              day("2026-11-21T03:00:00Z", `${worker ? "b" : "a"}6`, { tokenId: null, userId: "user_1", channelId: null, cacheStatus: "hit" }),
            ],
            usage(0, 0),
          ),
        );
        const before = {
          all: await store.usageSince(token, new Date(0)),
          fromThe21st: await store.usageSince(token, new Date("2026-11-21T00:00:00Z")),
          otherModel: await store.usageSince(token, new Date(0), ["other"]),
          user: await store.usageSince({ kind: "user", id: "user_1" }, new Date(0)),
        };
        const count = readBack(file).rows.length;
        // Batches of two: 2, 2, 1, then 0 of the five rows older than the 22nd.
        assert.equal(await store.sweepBefore(new Date("2026-11-22T00:00:00Z"), 2), 2);
        assert.equal(await store.sweepBefore(new Date("2026-11-22T00:00:00Z"), 2), 2);
        assert.equal(await store.sweepBefore(new Date("2026-11-22T00:00:00Z"), 2), 1);
        assert.equal(await store.sweepBefore(new Date("2026-11-22T00:00:00Z"), 2), 0);
        assert.equal(readBack(file).rows.length, count - 5);
        assert.deepEqual(await store.usageSince(token, new Date(0)), before.all);
        assert.deepEqual(await store.usageSince(token, new Date("2026-11-21T00:00:00Z")), before.fromThe21st);
        assert.deepEqual(await store.usageSince(token, new Date(0), ["other"]), before.otherModel);
        assert.deepEqual(await store.usageSince({ kind: "user", id: "user_1" }, new Date(0)), before.user);
        assert.equal(before.otherModel.requests, worker ? 2 : 1);
        assert.equal(before.user.requests, worker ? 2 : 1, "a row that reached no channel is not a request; a cache hit is");
      } finally {
        await store.close();
      }
    }
  });
});

describe("the SQLite store's hourly rollups", () => {
  test("equal the raw rows' sums after a soak, a failed batch, a repeated batch, a sweep and a backfill", async () => {
    const file = freshDatabase();
    const store = new SqliteRequestLogStore(file);
    // A second store on the same file, on the caller's thread: two writers on one database.
    const second = new SqliteRequestLogStore(file, new URL("./no-such-worker.mjs", import.meta.url));
    const database = new Database(file);
    try {
      await rollupContract({
        store,
        second,
        rawRows: async () =>
          (database.prepare(`SELECT * FROM "RequestLog"`).all() as (RawRow & { createdAt: string })[]).map((row) => ({ ...row, createdAt: new Date(row.createdAt) })),
        insertOldRows: async (rows) => {
          const after = (database.prepare(`SELECT MAX(rowid) AS last FROM "RequestLog"`).get() as { last: number }).last;
          const insert = database.prepare(`INSERT INTO "RequestLog" (${LOG_COLUMNS.map((column) => `"${column}"`).join(", ")}) VALUES (${LOG_COLUMNS.map(() => "?").join(", ")})`);
          for (const row of rows) insert.run(...logRowValues(row, { date: sqliteDate, boolean: (value) => (value ? 1 : 0) }));
          const through = (database.prepare(`SELECT MAX(rowid) AS last FROM "RequestLog"`).get() as { last: number }).last;
          database.prepare(`INSERT INTO "Setting" ("key", "value", "updatedAt") VALUES (?, ?, ?)`).run(BACKFILL_MARK, JSON.stringify({ through, after }), sqliteDate(new Date()));
        },
      });
    } finally {
      database.close();
      await store.close();
      await second.close();
    }
  });
});
