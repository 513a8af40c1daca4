import { randomInt } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { decryptSecret, encryptSecret } from "@/lib/crypto/encryption";
import { sameSecret } from "@/lib/crypto/same-secret";
import type { Database } from "@/lib/db/client";
import { isRateLimiterRefusal } from "@/lib/state/rate-limiter-refusal";
import type { SharedState } from "@/lib/state/shared-state";

// Until the first account exists, /setup asks for a one-time code that only whoever can
// read the start-up output or DATA_DIR has. It lives in the database (sealed with the
// encryption key), so every process and instance of a deployment asks for the same one,
// and is deleted by the claim that uses it: single use even when two claims race.

export const SETUP_CODE_FILE = "setup-code";
const SETTING_KEY = "setupCode";
// No 0/O or 1/I: the code is read off a terminal and typed by hand. 16 characters: 80 bits.
const ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
const LENGTH = 16;
/** Wrong codes per client address; the code's 80 bits make guessing hopeless anyway. */
const WRONG_CODES = { points: 10, seconds: 15 * 60 };

export interface SetupCodeKeys {
  /** The current encryption key first, then earlier ones. */
  encryptionKeys: Buffer[];
}

function newCode(): string {
  const characters = Array.from({ length: LENGTH }, () => ALPHABET[randomInt(ALPHABET.length)]);
  return characters.join("").replace(/(.{4})(?!$)/g, "$1-");
}

/** What the person typed, compared without case, spaces or dashes. */
function normalise(code: string): string {
  return code.toUpperCase().replace(/[^A-Z0-9]/g, "");
}

/** The pending setup code, or undefined when there is none (or it was sealed with a key since replaced). */
export async function readSetupCode(database: Database, keys: SetupCodeKeys): Promise<string | undefined> {
  const row = await database.setting.findUnique({ where: { key: SETTING_KEY } });
  if (!row) return undefined;
  try {
    return decryptSecret(JSON.parse(row.value) as string, keys.encryptionKeys);
  } catch {
    return undefined;
  }
}

/**
 * Run once per start, before serving: while no account exists, makes sure the deployment
 * has a setup code and writes it to DATA_DIR/setup-code; once one exists, removes the file.
 * Returns the code while setup waits.
 */
export async function ensureSetupCode(database: Database, keys: SetupCodeKeys, dataDir: string): Promise<string | undefined> {
  const file = path.join(dataDir, SETUP_CODE_FILE);
  if ((await database.user.count()) > 0) {
    // An account exists (made by setup, ADMIN_EMAIL or the admin API): no code is good any more.
    await database.setting.deleteMany({ where: { key: SETTING_KEY } });
    fs.rmSync(file, { force: true });
    return undefined;
  }
  let code = await readSetupCode(database, keys);
  if (!code) {
    const fresh = newCode();
    // A row no key opens (the key was changed) is replaced; another instance may have just
    // written one: then that one is the deployment's code.
    const unreadable = await database.setting.findUnique({ where: { key: SETTING_KEY } });
    if (unreadable) await database.setting.deleteMany({ where: { key: SETTING_KEY, value: unreadable.value } });
    try {
      await database.setting.create({ data: { key: SETTING_KEY, value: JSON.stringify(encryptSecret(fresh, keys.encryptionKeys[0]!)) } });
      code = fresh;
    } catch (error) {
      if ((error as { code?: string }).code !== "P2002") throw error;
      code = await readSetupCode(database, keys);
      if (!code) throw new Error("Another instance wrote a setup code this one cannot read: do the instances share ENCRYPTION_KEY?");
    }
  }
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(file, `${code}\n`, { mode: 0o600 });
  return code;
}

export type SetupCodeClaim = { ok: true; restore(): Promise<void> } | { ok: false; error: string };

/**
 * Checks a presented code (constant time) and, when right, deletes it so no second claim
 * can use it; `restore` puts it back if what the claim was for failed. Wrong codes are
 * counted per client address and refused for a while past the limit.
 */
export async function claimSetupCode(services: { database: Database; shared: SharedState; keys: SetupCodeKeys }, presented: string, address: string): Promise<SetupCodeClaim> {
  const limiter = services.shared.rateLimiter("setup-code", WRONG_CODES.points, WRONG_CODES.seconds);
  // Every try takes a point before the check (so parallel guesses cannot slip past the
  // limit); the right code gives them back.
  try {
    await limiter.consume(address);
  } catch (error) {
    // Counters that cannot be read refuse the try (fail closed), as sign-in does.
    if (!isRateLimiterRefusal(error)) return { ok: false, error: "Setup is unavailable for a moment; try again shortly." };
    return { ok: false, error: `Too many wrong setup codes. Try again in ${Math.ceil(error.msBeforeNext / 60_000)} minutes.` };
  }
  const row = await services.database.setting.findUnique({ where: { key: SETTING_KEY } });
  const expected = row ? await readSetupCode(services.database, services.keys) : undefined;
  if (!row || !expected || !sameSecret(normalise(presented), normalise(expected))) {
    return {
      ok: false,
      error: presented.trim()
        ? "That setup code is not right. The gateway prints it when it starts, and keeps it in the setup-code file of its data directory."
        : "Enter the setup code: the gateway prints it when it starts, and keeps it in the setup-code file of its data directory.",
    };
  }
  // Deleting exactly the row that was read: of two claims racing with the right code, one wins.
  const { count } = await services.database.setting.deleteMany({ where: { key: SETTING_KEY, value: row.value } });
  if (count !== 1) return { ok: false, error: "That setup code has just been used." };
  await limiter.delete(address);
  return {
    ok: true,
    restore: async () => {
      await services.database.setting.create({ data: { key: SETTING_KEY, value: row.value } }).catch(() => undefined);
    },
  };
}

/** After the first admin exists: the file has served its purpose. */
export function removeSetupCodeFile(dataDir: string): void {
  fs.rmSync(path.join(dataDir, SETUP_CODE_FILE), { force: true });
}
