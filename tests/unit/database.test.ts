import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { createDatabase } from "@/lib/db/client";
import { listMigrations, migrateSqlite } from "@/lib/db/migrate";

const directory = fs.mkdtempSync(path.join(os.tmpdir(), "gateway-db-"));
const file = path.join(directory, "test.db");
after(() => fs.rmSync(directory, { recursive: true, force: true }));

describe("a freshly migrated SQLite database", () => {
  test("applies every migration once", () => {
    assert.deepEqual(migrateSqlite(file), listMigrations("sqlite").map((migration) => migration.name));
    assert.deepEqual(migrateSqlite(file), []);
  });

  test("serves every model of schema.prisma, with the built-in mock channel seeded", async () => {
    const database = createDatabase({ kind: "sqlite", file });
    try {
      const mock = await database.channel.findUnique({ where: { id: "builtin-mock" } });
      assert.equal(mock?.type, "mock");
      assert.deepEqual(mock?.models, ["mock-chat"]);
      assert.ok(mock?.createdAt instanceof Date && !Number.isNaN(mock.createdAt.getTime()));

      const user = await database.user.create({ data: { email: "a@example.com", role: "admin", passwordHash: "x" } });
      const expiresAt = new Date("2030-01-01T00:00:00.000Z");
      const token = await database.token.create({
        data: { name: "t", keyHash: "h", keyPrefix: "sk-x…y", userId: user.id, models: ["a", "b"], quotaTokens: 5_000_000_000n, rpm: 60, expiresAt },
      });
      assert.equal(token.enabled, true);
      assert.equal(token.usedTokens, 0n);
      const updated = await database.token.update({ where: { id: token.id }, data: { usedTokens: { increment: 7 } } });
      assert.equal(updated.usedTokens, 7n);
      assert.equal(updated.quotaTokens, 5_000_000_000n);
      assert.deepEqual(updated.models, ["a", "b"]);
      assert.equal(updated.expiresAt?.toISOString(), expiresAt.toISOString());
      await assert.rejects(database.token.create({ data: { name: "dup", keyHash: "h", keyPrefix: "p" } }));

      const channel = await database.channel.create({
        data: { name: "c", type: "openai", models: ["m"], modelMap: { m: "n" }, apiKeyEncrypted: "v1.x.y.z" },
      });
      assert.deepEqual(channel.modelMap, { m: "n" });
      assert.equal(channel.priority, 0);
      assert.equal(channel.weight, 1);

      await database.requestLog.createMany({
        data: [{ id: "r1", endpoint: "/v1/chat/completions", clientFormat: "openai", method: "POST", status: 200, latencyMs: 5, warnings: ["w"], tokenId: token.id }],
      });
      const log = await database.requestLog.findUnique({ where: { id: "r1" } });
      assert.deepEqual(log?.warnings, ["w"]);
      assert.equal(log?.stream, false);

      await database.setting.upsert({ where: { key: "openSignup" }, create: { key: "openSignup", value: "true" }, update: { value: "true" } });
      assert.equal((await database.setting.findUnique({ where: { key: "openSignup" } }))?.value, "true");

      await database.user.delete({ where: { id: user.id } });
      assert.equal((await database.token.findUnique({ where: { id: token.id } }))?.userId, null, "owner removal keeps the token");
    } finally {
      await database.$disconnect();
    }
  });
});
