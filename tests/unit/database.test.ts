import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { createDatabase } from "@/lib/db/client";
import { listMigrations, migrateSqlite } from "@/lib/db/migrate";
import { exerciseEveryModel } from "../helpers/exercise-models";

const directory = fs.mkdtempSync(path.join(os.tmpdir(), "gateway-db-"));
const file = path.join(directory, "test.db");
after(() => fs.rmSync(directory, { recursive: true, force: true }));

describe("a freshly migrated SQLite database", () => {
  test("applies every migration once", () => {
    assert.deepEqual(
      migrateSqlite(file),
      listMigrations("sqlite").map((migration) => migration.name),
    );
    assert.deepEqual(migrateSqlite(file), []);
  });

  test("serves every model of schema.prisma, with the built-in mock channel seeded", async () => {
    const database = await createDatabase({ kind: "sqlite", file });
    try {
      await exerciseEveryModel(database);
    } finally {
      await database.$disconnect();
    }
  });
});

/** Another process holding `file`'s write lock for `ms`; resolves once it holds it. */
async function holdWriteLock(file: string, ms: number): Promise<ChildProcess> {
  const script = `
    const Database = require("better-sqlite3");
    const database = new Database(process.argv[1]);
    database.exec("BEGIN EXCLUSIVE");
    process.stdout.write("locked\\n");
    setTimeout(() => { database.exec("COMMIT"); database.close(); }, Number(process.argv[2]));
  `;
  const child = spawn(process.execPath, ["-e", script, file, String(ms)], { stdio: ["ignore", "pipe", "inherit"] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once("data", () => resolve());
    child.once("exit", (code) => reject(new Error(`lock holder exited with ${code}`)));
  });
  return child;
}

describe("several processes on one SQLite file", () => {
  test("migrating waits for another process's lock instead of failing with 'database is locked'", async () => {
    const fresh = path.join(directory, "locked-fresh.db");
    const holder = await holdWriteLock(fresh, 800);
    const started = Date.now();
    assert.ok(migrateSqlite(fresh).length > 0);
    assert.ok(Date.now() - started >= 500, "it waited for the lock");
    await new Promise((resolve) => holder.once("exit", resolve));
  });

  test("the database client waits for another process's write lock", async () => {
    const database = await createDatabase({ kind: "sqlite", file });
    try {
      const holder = await holdWriteLock(file, 800);
      await database.setting.create({ data: { key: "busy-test", value: "1" } });
      assert.equal((await database.setting.findUnique({ where: { key: "busy-test" } }))?.value, "1");
      // Long enough for a loaded machine: the driver's default is 5 s, which a busy start-up passed.
      const [pragma] = await database.$queryRawUnsafe<{ timeout: bigint | number }[]>("PRAGMA busy_timeout");
      assert.equal(Number(pragma!.timeout), 30_000);
      await new Promise((resolve) => holder.once("exit", resolve));
    } finally {
      await database.$disconnect();
    }
  });
});
