import { createHash } from "node:crypto";
import { randomBase62 } from "@/lib/crypto/random-key";

/** A new platform key: `sk-` and 48 base62 characters (~285 bits). */
export function generateTokenKey(): string {
  return `sk-${randomBase62(48)}`;
}

/** Keys are high-entropy, so a fast hash is enough to make the stored value useless. */
export function hashTokenKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

/** What the console shows instead of the key: `sk-AbCd…wXyZ`. */
export function displayPrefix(key: string): string {
  return `${key.slice(0, 7)}…${key.slice(-4)}`;
}
