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
  const generated = { authSecret: randomBytes(32).toString("base64url"), encryptionKey: randomBytes(32).toString("base64") };
  const stored = JSON.parse(createOnce(file, JSON.stringify(generated, null, 2))) as { authSecret: string; encryptionKey: string };

  return {
    authSecret: env.AUTH_SECRET ?? stored.authSecret,
    encryptionKey: env.ENCRYPTION_KEY
      ? createHash("sha256").update(env.ENCRYPTION_KEY).digest()
      : Buffer.from(stored.encryptionKey, "base64"),
    adminApiKey: env.ADMIN_API_KEY ?? loadOrCreateAdminKey(dataDir),
  };
}

function loadOrCreateAdminKey(dataDir: string): string {
  return createOnce(path.join(dataDir, ADMIN_KEY_FILE), `gw-admin-${randomBase62(40)}\n`).trim();
}

/**
 * The file's content, creating it with `content` when it does not exist. Several
 * processes starting together in one directory all read the same, complete file: it is
 * written aside and linked into place, which fails if another process got there first.
 */
function createOnce(file: string, content: string): string {
  if (fs.existsSync(file)) return fs.readFileSync(file, "utf8");
  const draft = `${file}.${process.pid}.${randomBytes(4).toString("hex")}`;
  fs.writeFileSync(draft, content, { mode: 0o600 });
  try {
    fs.linkSync(draft, file);
    return content;
  } catch (error) {
    if ((error as { code?: string }).code !== "EEXIST") throw error;
    return fs.readFileSync(file, "utf8");
  } finally {
    fs.rmSync(draft, { force: true });
  }
}
