import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { createDatabase } from "@/lib/db/client";
import { migrateSqlite } from "@/lib/db/migrate";
import { acquireDatabaseLease, releaseDatabaseLease } from "@/lib/retention/database-lease";
import { RetentionSweeper, SWEEP_BATCH, type RetentionStore } from "@/lib/retention/retention-sweeper";

const directory = fs.mkdtempSync(path.join(os.tmpdir(), "gateway-retention-"));
after(() => fs.rmSync(directory, { recursive: true, force: true }));

/** A store holding `rows` expired rows, recording each batch it was asked for. */
function fakeStore(kind: RetentionStore["kind"], rows: number, retentionMs = 1000) {
  const batches: number[] = [];
  let left = rows;
  const store: RetentionStore = {
    kind,
    retentionMs,
    async sweepBefore(_before, limit) {
      const deleted = Math.min(limit, left);
      left -= deleted;
      batches.push(deleted);
      return deleted;
    },
  };
  return { store, batches };
}

describe("the retention sweeper", () => {
  test("deletes in batches until a short one, counts what it deleted per kind, and skips a store kept forever", async () => {
    const logs = fakeStore("request_logs", 2 * SWEEP_BATCH + 34);
    const responses = fakeStore("responses", 5, 0);
    const counted: [string, number][] = [];
    const sweeper = new RetentionSweeper({
      stores: [logs.store, responses.store],
      intervalMs: 60_000,
      leaseName: "retention:test",
      acquireLease: async () => true,
      releaseLease: async () => undefined,
      onDeleted: (kind, rows) => counted.push([kind, rows]),
    });
    assert.deepEqual(await sweeper.sweep(), { request_logs: 2 * SWEEP_BATCH + 34 });
    assert.deepEqual(logs.batches, [SWEEP_BATCH, SWEEP_BATCH, 34]);
    assert.deepEqual(responses.batches, []);
    assert.equal(
      counted.reduce((sum, [, rows]) => sum + rows, 0),
      2 * SWEEP_BATCH + 34,
    );
  });

  test("processes sharing one SQLite file without Redis sweep one at a time, through a database lease", async () => {
    const file = path.join(directory, "lease.db");
    migrateSqlite(file);
    // Two clients on one file stand for two worker processes.
    const [first, second] = await Promise.all([createDatabase({ kind: "sqlite", file }), createDatabase({ kind: "sqlite", file })]);
    try {
      const sweeperOn = (database: typeof first, rows: number) => {
        const fake = fakeStore("request_logs", rows);
        const sweeper = new RetentionSweeper({
          stores: [fake.store],
          intervalMs: 60_000,
          leaseName: "retention:test",
          acquireLease: (name, holder, ttlMs) => acquireDatabaseLease(database, name, holder, ttlMs),
          releaseLease: (name, holder) => releaseDatabaseLease(database, name, holder),
          onDeleted: () => undefined,
        });
        return { sweeper, fake };
      };
      const a = sweeperOn(first, 10);
      const b = sweeperOn(second, 10);
      const results = await Promise.all([a.sweeper.sweep(), b.sweeper.sweep()]);
      assert.equal(results.filter((result) => result.request_logs === 10).length, 1, "exactly one swept");
      assert.equal(a.fake.batches.length + b.fake.batches.length, 1);
      // The holder keeps it on its next sweep; the other waits.
      const [holder, other] = a.fake.batches.length ? [a, b] : [b, a];
      assert.deepEqual(await other.sweeper.sweep(), {});
      holder.sweeper.start();
      await holder.sweeper.stop(); // lets go of the lease
      assert.deepEqual(await other.sweeper.sweep(), { request_logs: 10 });
    } finally {
      await first.$disconnect();
      await second.$disconnect();
    }
  });
});
