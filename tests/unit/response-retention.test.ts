import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { createDatabase } from "@/lib/db/client";
import { migrateSqlite } from "@/lib/db/migrate";
import { ResponseStore } from "@/lib/responses/response-store";

// RESPONSE_RETENTION: an answer past it is unknown at once, before any sweep deletes it.
const directory = fs.mkdtempSync(path.join(os.tmpdir(), "gateway-responses-"));
after(() => fs.rmSync(directory, { recursive: true, force: true }));

describe("stored responses under a retention", () => {
  test("an expired answer is not found, continued or deleted before the sweep, and the sweep removes it in batches", async () => {
    const file = path.join(directory, "responses.db");
    migrateSqlite(file);
    const database = await createDatabase({ kind: "sqlite", file });
    let now = Date.now();
    const store = new ResponseStore(database, 60_000, () => now);
    try {
      const record = (id: string) => ({
        id,
        native: false,
        channelId: null,
        model: "m",
        conversation: [],
        input: [],
        response: { id, output: [{ id: `item_${id}`, type: "message" }] },
      });
      for (const id of ["resp_a", "resp_b", "resp_c"]) await store.save("token:t", record(id));
      assert.ok(await store.find("token:t", "resp_a"));
      assert.equal((await store.recentItems("token:t")).size, 3);

      now += 61_000;
      assert.equal(await store.find("token:t", "resp_a"), null, "expired: unknown, like an id never stored");
      assert.equal((await store.recentItems("token:t")).size, 0);
      assert.equal(await store.delete("token:t", "resp_b"), false);
      assert.equal(await store.count(), 3, "still in the table until the sweep");

      const before = new Date(now - 60_000);
      assert.equal(await store.sweepBefore(before, 2), 2);
      assert.equal(await store.sweepBefore(before, 2), 1);
      assert.equal(await store.sweepBefore(before, 2), 0);
      assert.equal(await store.count(), 0);
      await store.save("token:t", record("resp_d"));
      assert.ok(await store.find("token:t", "resp_d"), "a new answer is kept");
    } finally {
      await database.$disconnect();
    }
  });
});
