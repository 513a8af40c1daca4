import { randomBytes } from "node:crypto";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** A uniformly random base62 string (rejection sampling keeps it unbiased). */
export function randomBase62(length: number): string {
  let result = "";
  while (result.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) result += ALPHABET[byte % 62];
      if (result.length === length) break;
    }
  }
  return result;
}
