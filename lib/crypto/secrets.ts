import { createHash, hkdfSync, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { env } from "@/lib/env";
import { randomBase62 } from "./random-key";

export interface Secrets {
  /** Signs console sessions (next-auth). */
  authSecret: string;
  /** AES-256 key for upstream API keys at rest. */
  encryptionKey: Buffer;
  /** HMAC key for platform token hashes (TOKEN_HASH_SECRET, else derived from the auth secret). */
  tokenHashKey: Buffer;
  /** Keys that sealed channel keys before a rotation (ENCRYPTION_KEY_PREVIOUS): read, never written. */
  previousEncryptionKeys: Buffer[];
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

  const authSecret = env.AUTH_SECRET ?? stored.authSecret;
  return {
    authSecret,
    encryptionKey: env.ENCRYPTION_KEY ? encryptionKeyFrom(env.ENCRYPTION_KEY) : Buffer.from(stored.encryptionKey, "base64"),
    previousEncryptionKeys: [
      ...(env.ENCRYPTION_KEY_PREVIOUS ?? "")
        .split(",")
        .map((value) => value.trim())
        .filter(Boolean)
        .map(encryptionKeyFrom),
      // Moving from the generated key to ENCRYPTION_KEY: what the file key sealed stays readable.
      ...(env.ENCRYPTION_KEY ? [Buffer.from(stored.encryptionKey, "base64")] : []),
    ],
    tokenHashKey: Buffer.from(hkdfSync("sha256", env.TOKEN_HASH_SECRET ?? authSecret, "", "gateway token hash v1", 32)),
    adminApiKey: env.ADMIN_API_KEY ?? loadOrCreateAdminKey(dataDir),
  };
}

/** Any string becomes a 256-bit key; the same string always gives the same key. */
function encryptionKeyFrom(value: string): Buffer {
  return createHash("sha256").update(value).digest();
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
