import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { ensureSetupCode, SETUP_CODE_FILE } from "@/lib/auth/setup-code";
import { createFirstAdmin } from "@/lib/console/first-admin";
import { createDatabase, type Database } from "@/lib/db/client";
import { migrateSqlite } from "@/lib/db/migrate";
import type { Runtime } from "@/lib/runtime";
import { MemorySharedState } from "@/lib/state/memory-shared-state";

// Until the first account exists, /setup is claimable only with the code start-up printed.

const directory = fs.mkdtempSync(path.join(os.tmpdir(), "gateway-setup-"));
const encryptionKey = randomBytes(32);
const keys = { encryptionKeys: [encryptionKey] };
let database: Database;
let runtime: Runtime;

const form = (code: string, email = "owner@example.com") => ({ email, password: "owner-password", confirm: "owner-password", code });
const admins = () => database.user.count();

before(async () => {
  const file = path.join(directory, "gateway.db");
  migrateSqlite(file);
  database = await createDatabase({ kind: "sqlite", file });
  runtime = { database, shared: new MemorySharedState(), secrets: { encryptionKey, previousEncryptionKeys: [] } } as unknown as Runtime;
});
after(async () => {
  await database.$disconnect();
  fs.rmSync(directory, { recursive: true, force: true });
});

describe("the setup code", () => {
  test("is made once per deployment, kept sealed in the database and written beside the admin key", async () => {
    const code = await ensureSetupCode(database, keys, directory);
    assert.match(code!, /^[A-Z2-9]{4}(-[A-Z2-9]{4}){3}$/);
    assert.equal(await ensureSetupCode(database, keys, directory), code, "a second start (or process) gets the same code");
    assert.equal(fs.readFileSync(path.join(directory, SETUP_CODE_FILE), "utf8").trim(), code);
    assert.equal(fs.statSync(path.join(directory, SETUP_CODE_FILE)).mode & 0o077, 0, "readable by its owner only");
    const stored = JSON.stringify(await database.setting.findMany());
    assert.equal(stored.includes(code!), false, "never stored in the clear");
  });

  test("instances starting together agree on one code", async () => {
    const file = path.join(directory, "together.db");
    migrateSqlite(file);
    const [one, two] = await Promise.all([createDatabase({ kind: "sqlite", file }), createDatabase({ kind: "sqlite", file })]);
    try {
      const [first, second] = await Promise.all([ensureSetupCode(one!, keys, path.join(directory, "a")), ensureSetupCode(two!, keys, path.join(directory, "b"))]);
      assert.ok(first);
      assert.equal(second, first);
      assert.equal(await ensureSetupCode(one!, keys, path.join(directory, "a")), first);
    } finally {
      await Promise.all([one!.$disconnect(), two!.$disconnect()]);
    }
  });

  test("/setup without the code, or with a wrong one, creates no account", async () => {
    assert.match((await createFirstAdmin(runtime, form(""), "10.0.0.1", directory)).error!, /Enter the setup code/);
    assert.match((await createFirstAdmin(runtime, form("AAAA-BBBB-CCCC-DDDD"), "10.0.0.1", directory)).error!, /not right/);
    assert.equal(await admins(), 0);
  });

  test("wrong codes are rate-limited per address: past ten, even the right code waits", async () => {
    const code = (await ensureSetupCode(database, keys, directory))!;
    for (let index = 0; index < 10; index += 1) await createFirstAdmin(runtime, form(`WRONG-${index}`), "10.0.0.2", directory);
    const refused = await createFirstAdmin(runtime, form(code), "10.0.0.2", directory);
    assert.match(refused.error!, /Too many wrong setup codes\. Try again in \d+ minutes/);
    assert.equal(await admins(), 0);
  });

  test("a form mistake does not spend the code", async () => {
    const code = (await ensureSetupCode(database, keys, directory))!;
    assert.match((await createFirstAdmin(runtime, { ...form(code), confirm: "other-password" }, "10.0.0.3", directory)).error!, /do not match/);
    assert.equal(await ensureSetupCode(database, keys, directory), code);
  });

  test("the right code (any case, spaces or dashes) creates the admin once, even when two claims race", async () => {
    const code = (await ensureSetupCode(database, keys, directory))!;
    const typed = code.toLowerCase().replaceAll("-", " ");
    const results = await Promise.all([
      createFirstAdmin(runtime, form(typed, "first@example.com"), "10.0.0.4", directory),
      createFirstAdmin(runtime, form(code, "second@example.com"), "10.0.0.5", directory),
    ]);
    assert.equal(results.filter((result) => result.error === null).length, 1, JSON.stringify(results));
    assert.equal(await admins(), 1);
    const user = await database.user.findFirstOrThrow();
    assert.equal(user.role, "admin");
    assert.equal(fs.existsSync(path.join(directory, SETUP_CODE_FILE)), false, "the file goes with the code");
    assert.notEqual((await createFirstAdmin(runtime, form(code, "third@example.com"), "10.0.0.6", directory)).error, null);
    assert.equal(await admins(), 1);
    assert.equal(await ensureSetupCode(database, keys, directory), undefined, "no new code once an account exists");
  });
});
