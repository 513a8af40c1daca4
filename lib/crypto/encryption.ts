import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

// AES-256-GCM for secrets at rest (upstream API keys). Format: v1.<iv>.<tag>.<ciphertext>, base64url.

export function encryptSecret(plaintext: string, key: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return ["v1", iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), ciphertext.toString("base64url")].join(".");
}

/** Opens a sealed value with the first key that authenticates it (the current key, then older ones). */
export function decryptSecret(value: string, keys: Buffer | Buffer[]): string {
  const candidates = Array.isArray(keys) ? keys : [keys];
  for (const [index, key] of candidates.entries()) {
    try {
      return decryptWith(value, key);
    } catch (error) {
      if (index === candidates.length - 1) throw error;
    }
  }
  throw new Error("No key to decrypt with");
}

function decryptWith(value: string, key: Buffer): string {
  const [version, iv, tag, ciphertext] = value.split(".");
  if (version !== "v1" || !iv || !tag || ciphertext === undefined) throw new Error("Unrecognised encrypted value");
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString("utf8");
}
