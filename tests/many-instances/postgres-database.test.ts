import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createDatabase } from "@/lib/db/client";
import { listMigrations, migrate } from "@/lib/db/migrate";
import { exerciseEveryModel } from "../helpers/exercise-models";
import { createTestDatabase, sharedServices } from "../helpers/start-gateway";

// The PostgreSQL migrations and schema.prisma agree: every model works on a fresh database,
// and two runners starting at once apply each migration exactly once.

describe("a freshly migrated PostgreSQL database", () => {
  test("concurrent migration runners apply every migration once", async () => {
    const services = sharedServices();
    if (!services) throw new Error("This suite needs TEST_POSTGRES_URL and TEST_REDIS_URL: run it through `npm test`.");
    const url = await createTestDatabase(services.postgresUrl);
    const runs = await Promise.all([migrate({ kind: "postgresql", url }), migrate({ kind: "postgresql", url }), migrate({ kind: "postgresql", url })]);
    assert.deepEqual(
      runs.flat().sort(),
      listMigrations("postgresql")
        .map((migration) => migration.name)
        .sort(),
    );
    assert.deepEqual(await migrate({ kind: "postgresql", url }), []);
    const database = await createDatabase({ kind: "postgresql", url });
    try {
      await exerciseEveryModel(database);
    } finally {
      await database.$disconnect();
    }
  });
});
