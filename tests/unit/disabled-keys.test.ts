import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import type { Database } from "@/lib/db/client";
import { heldAtWrite } from "../helpers/held-database";

// Two processes disabling two keys of one channel's pool at once (a revoked key each): a
// process whose read of the row went stale while the other wrote must not write back a map
// that misses the other's key (before, the last write won and one disable was lost).

const { createDatabase } = await import("@/lib/db/client");
const { migrateSqlite } = await import("@/lib/db/migrate");
const { editDisabledKeys } = await import("@/lib/channels/disabled-keys");

const directory = fs.mkdtempSync(path.join(os.tmpdir(), "gateway-disabled-keys-"));
let database: Database;
before(async () => {
  const file = path.join(directory, "test.db");
  migrateSqlite(file);
  database = await createDatabase({ kind: "sqlite", file });
});
after(async () => {
  await database?.$disconnect();
  fs.rmSync(directory, { recursive: true, force: true });
});

test("a key disabled by one process while another was writing its own stays recorded with it", async () => {
  const channel = await database.channel.create({ data: { name: "pool", type: "openai", disabledKeys: {} } });
  let release = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  let reached = () => {};
  const atWrite = new Promise<void>((resolve) => (reached = resolve));

  const stale = editDisabledKeys(heldAtWrite(database, "channel", gate, reached), channel.id, (keys) => ({ ...keys, aaaa: "401 revoked" }));
  await atWrite; // it read the row (no key disabled) and waits to write
  const other = await editDisabledKeys(database, channel.id, (keys) => ({ ...keys, bbbb: "403 no access" }));
  assert.deepEqual(other, { before: {}, changed: true });
  release();
  assert.deepEqual(await stale, { before: { bbbb: "403 no access" }, changed: true }, "the held process wrote from a fresh read");

  const row = await database.channel.findUniqueOrThrow({ where: { id: channel.id } });
  assert.deepEqual(row.disabledKeys, { aaaa: "401 revoked", bbbb: "403 no access" });
});

test("an edit that changes nothing writes nothing; a missing channel answers undefined", async () => {
  const channel = await database.channel.create({ data: { name: "quiet", type: "openai", disabledKeys: { cccc: "401" } } });
  const unchanged = await editDisabledKeys(database, channel.id, () => undefined);
  assert.deepEqual(unchanged, { before: { cccc: "401" }, changed: false });
  const row = await database.channel.findUniqueOrThrow({ where: { id: channel.id } });
  assert.equal(row.updatedAt.getTime(), channel.updatedAt.getTime());
  assert.equal(await editDisabledKeys(database, "no-such-channel", (keys) => ({ ...keys, dddd: "401" })), undefined);
});

test("a row whose updatedAt another writer stored in its own text form is still written", async () => {
  const channel = await database.channel.create({ data: { name: "seeded", type: "openai", disabledKeys: {} } });
  // As migration 0001 seeds the built-in mock channel: the time as SQLite's strftime writes it.
  await database.$executeRawUnsafe(`UPDATE "Channel" SET "updatedAt" = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE "id" = ?`, channel.id);
  const written = await editDisabledKeys(database, channel.id, (keys) => ({ ...keys, eeee: "401" }));
  assert.deepEqual(written, { before: {}, changed: true });
  const row = await database.channel.findUniqueOrThrow({ where: { id: channel.id } });
  assert.deepEqual(row.disabledKeys, { eeee: "401" });
});
