import assert from "node:assert/strict";
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
    assert.deepEqual(migrateSqlite(file), listMigrations("sqlite").map((migration) => migration.name));
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
