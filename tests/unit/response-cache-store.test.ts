import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { databaseCacheStore, sharedStateCacheStore, type ResponseCacheStore } from "@/lib/cache/response-cache-store";
import { createDatabase } from "@/lib/db/client";
import { migrateSqlite } from "@/lib/db/migrate";
import { MemorySharedState } from "@/lib/state/memory-shared-state";

// The response cache's two stores keep answers until their TTL and stay under their size
// bound by evicting the entries nearest their expiry (Redis's is in tests/many-instances).

const directory = fs.mkdtempSync(path.join(os.tmpdir(), "gateway-cache-"));
after(() => fs.rmSync(directory, { recursive: true, force: true }));

/** Values of 100 bytes under a 250-byte bound: two fit, a third evicts the one expiring first. */
async function checkBoundedStore(store: ResponseCacheStore, advance: (ms: number) => void): Promise<void> {
  const value = (letter: string) => letter.repeat(100);
  await store.put("short", value("a"), 10);
  await store.put("long", value("b"), 60);
  assert.equal(await store.get("short"), value("a"));
  await store.put("newest", value("c"), 30);
  assert.equal(await store.get("short"), undefined, "the entry nearest its expiry made room");
  assert.equal(await store.get("long"), value("b"));
  assert.equal(await store.get("newest"), value("c"));
  // Replacing an entry does not count it twice.
  await store.put("newest", value("d"), 30);
  assert.equal(await store.get("long"), value("b"));
  assert.equal(await store.get("newest"), value("d"));
  // Larger than the whole bound: never kept.
  await store.put("huge", "x".repeat(300), 60);
  assert.equal(await store.get("huge"), undefined);
  advance(31_000);
  assert.equal(await store.get("newest"), undefined, "gone after its TTL");
  assert.equal(await store.get("long"), value("b"));
}

describe("the response cache's stores", () => {
  test("the database store (no Redis): TTL, replacement and eviction by nearest expiry", async () => {
    const file = path.join(directory, "cache.db");
    migrateSqlite(file);
    const database = await createDatabase({ kind: "sqlite", file });
    let now = Date.now();
    try {
      await checkBoundedStore(
        databaseCacheStore(database, 250, () => new Date(now)),
        (ms) => (now += ms),
      );
      assert.ok((await database.responseCacheEntry.aggregate({ _sum: { bytes: true } }))._sum.bytes! <= 250);
    } finally {
      await database.$disconnect();
    }
  });

  test("the shared state's bounded store in memory", async (context) => {
    const state = new MemorySharedState();
    context.mock.timers.enable({ apis: ["Date"], now: Date.now() });
    await checkBoundedStore(sharedStateCacheStore(state, 250), (ms) => context.mock.timers.tick(ms));
  });
});
