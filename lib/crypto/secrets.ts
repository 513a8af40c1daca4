import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { env } from "@/lib/env";
import { randomBase62 } from "./random-key";

export interface Secrets {
  /** Signs console sessions (next-auth). */
  authSecret: string;
  /** AES-256 key for upstream API keys at rest. */
  encryptionKey: Buffer;
  /** Bearer for /api/admin. */
  adminApiKey: string;
}

const SECRETS_FILE = "secrets.json";
export const ADMIN_KEY_FILE = "admin-api-key";

/**
 * Secrets come from the environment when set; otherwise they are generated once and
 * kept under DATA_DIR (mode 0600), so a plain `npm start` needs no configuration.
 */
export function loadSecrets(dataDir = env.DATA_DIR): Secrets {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, SECRETS_FILE);
  let stored: { authSecret?: string; encryptionKey?: string } = {};
  if (fs.existsSync(file)) stored = JSON.parse(fs.readFileSync(file, "utf8"));
  let changed = false;
  if (!stored.authSecret) {
    stored.authSecret = randomBytes(32).toString("base64url");
    changed = true;
  }
  if (!stored.encryptionKey) {
    stored.encryptionKey = randomBytes(32).toString("base64");
    changed = true;
  }
  if (changed) fs.writeFileSync(file, JSON.stringify(stored, null, 2), { mode: 0o600 });

  return {
    authSecret: env.AUTH_SECRET ?? stored.authSecret,
    encryptionKey: env.ENCRYPTION_KEY
      ? createHash("sha256").update(env.ENCRYPTION_KEY).digest()
      : Buffer.from(stored.encryptionKey, "base64"),
    adminApiKey: env.ADMIN_API_KEY ?? loadOrCreateAdminKey(dataDir),
  };
}

function loadOrCreateAdminKey(dataDir: string): string {
  const file = path.join(dataDir, ADMIN_KEY_FILE);
  if (fs.existsSync(file)) return fs.readFileSync(file, "utf8").trim();
  const key = `gw-admin-${randomBase62(40)}`;
  fs.writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return key;
}
