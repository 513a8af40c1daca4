import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { hashPassword, verifyPassword } from "@/lib/auth/password";
import { signInWithPassword } from "@/lib/console/password-sign-in";
import { createDatabase, type Database } from "@/lib/db/client";
import { migrateSqlite } from "@/lib/db/migrate";
import { MemorySharedState } from "@/lib/state/memory-shared-state";

// Whether an email has an account must not show in how long sign-in takes: every refusal
// (unknown email, password-less or disabled account, wrong password) does the one password
// check a right password does, against a hash made like the real ones.

const directory = fs.mkdtempSync(path.join(os.tmpdir(), "gateway-sign-in-"));
const PASSWORD = "right-password-123";
let database: Database;
let realHash: string;

/** Signs in with a verifier that records each stored hash it is asked to check. */
async function attempt(email: string, password: string, address: string) {
  const checked: string[] = [];
  const verify = async (typed: string, stored: string) => (checked.push(stored), verifyPassword(typed, stored));
  const user = await signInWithPassword({ database, shared: new MemorySharedState(), deploymentId: "test", verifyPassword: verify }, { email, password }, address);
  return { user, checked };
}

/** scheme, N, r, p and the lengths of salt and key: what decides how long a check takes. */
const costOf = (stored: string) => stored.split("$").map((part, index) => (index < 4 ? part : Buffer.from(part, "base64").length));

before(async () => {
  const file = path.join(directory, "gateway.db");
  migrateSqlite(file);
  database = await createDatabase({ kind: "sqlite", file });
  realHash = await hashPassword(PASSWORD);
  await database.user.create({ data: { email: "active@example.com", passwordHash: realHash } });
  await database.user.create({ data: { email: "disabled@example.com", passwordHash: await hashPassword(PASSWORD), disabled: true } });
  await database.user.create({ data: { email: "single-sign-on@example.com" } });
});
after(async () => {
  await database.$disconnect();
  fs.rmSync(directory, { recursive: true, force: true });
});

describe("password sign-in does the same work whether or not the account exists", () => {
  test("a right password signs in after one check", async () => {
    const { user, checked } = await attempt("Active@Example.com ", PASSWORD, "10.0.0.1");
    assert.equal(user?.email, "active@example.com");
    assert.deepEqual(checked, [realHash]);
  });

  for (const [what, email, password] of [
    ["an unknown email", "nobody@example.com", PASSWORD],
    ["a disabled account, even with its right password", "disabled@example.com", PASSWORD],
    ["an account with no password (single sign-on)", "single-sign-on@example.com", PASSWORD],
    ["a wrong password", "active@example.com", "wrong-password-456"],
  ] as const) {
    test(`${what} is refused after exactly one check at the real hashes' cost`, async () => {
      const { user, checked } = await attempt(email, password, "10.0.0.2");
      assert.equal(user, null);
      assert.equal(checked.length, 1);
      assert.deepEqual(costOf(checked[0]!), costOf(realHash));
    });
  }

  test("the stand-in hash is made once and is no one's password", async () => {
    const first = await attempt("nobody-1@example.com", PASSWORD, "10.0.0.3");
    const second = await attempt("nobody-2@example.com", "another-password", "10.0.0.3");
    assert.equal(first.checked.length, 1);
    assert.deepEqual(second.checked, first.checked);
    assert.notEqual(first.checked[0], realHash);
    assert.equal(second.user, null);
  });
});
