import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { randomBase62 } from "@/lib/crypto/random-key";

/** A new platform key: `sk-` and 48 base62 characters (~285 bits). */
export function generateTokenKey(): string {
  return `sk-${randomBase62(48)}`;
}

/** Characters of the key kept in the clear to find its row: `sk-` and 8 more (48 bits, ~237 left secret). */
const LOOKUP_LENGTH = 11;

/** What a row stores to find and check a key: a lookup prefix and a keyed hash (HMAC-SHA256). */
export interface TokenKeyDigest {
  lookupKey: string;
  keyHash: string;
}

export function digestTokenKey(key: string, hashKey: Buffer): TokenKeyDigest {
  return { lookupKey: key.slice(0, LOOKUP_LENGTH), keyHash: createHmac("sha256", hashKey).update(key).digest("hex") };
}

/** How rows created before keyed hashes stored their key; upgraded on first use. */
export function legacyTokenHash(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

/** Compares two hex digests without leaking, through timing, how much of them matched. */
export function sameDigest(a: string, b: string): boolean {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}

/** What the console shows instead of the key: `sk-AbCd…wXyZ`. */
export function displayPrefix(key: string): string {
  return `${key.slice(0, 7)}…${key.slice(-4)}`;
}
