import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, test } from "node:test";
import { digestTokenKey, displayPrefix, generateTokenKey, sameDigest } from "@/lib/auth/token-key";
import { hashPassword, verifyPassword } from "@/lib/auth/password";
import { decryptSecret, encryptSecret } from "@/lib/crypto/encryption";
import { scrubSecrets } from "@/lib/providers/scrub-secrets";

describe("secrets", () => {
  test("token keys are sk- prefixed, unique, and stored as a keyed hash with a short lookup prefix", () => {
    const keys = new Set(Array.from({ length: 1000 }, generateTokenKey));
    assert.equal(keys.size, 1000);
    const key = [...keys][0]!;
    assert.match(key, /^sk-[A-Za-z0-9]{48}$/);
    const secret = randomBytes(32);
    const digest = digestTokenKey(key, secret);
    assert.deepEqual(digestTokenKey(key, secret), digest);
    assert.equal(digest.lookupKey, key.slice(0, 11), "the prefix leaves 40 characters (~237 bits) secret");
    assert.equal(digest.keyHash.includes(key.slice(3)), false);
    assert.notEqual(digestTokenKey(key, randomBytes(32)).keyHash, digest.keyHash, "without the server secret the hash cannot be recomputed");
    assert.ok(sameDigest(digest.keyHash, digestTokenKey(key, secret).keyHash));
    assert.equal(sameDigest(digest.keyHash, digestTokenKey(`${key}x`, secret).keyHash), false);
    assert.equal(sameDigest(digest.keyHash, "abc"), false);
    assert.equal(displayPrefix(key), `${key.slice(0, 7)}…${key.slice(-4)}`);
  });

  test("upstream keys round-trip through AES-GCM and tampering is detected", () => {
    const key = randomBytes(32);
    const sealed = encryptSecret("sk-upstream", key);
    assert.equal(sealed.includes("sk-upstream"), false);
    assert.equal(decryptSecret(sealed, key), "sk-upstream");
    assert.notEqual(encryptSecret("sk-upstream", key), sealed, "fresh IV each time");
    const parts = sealed.split(".");
    parts[3] = Buffer.from("forged").toString("base64url");
    assert.throws(() => decryptSecret(parts.join("."), key));
    assert.throws(() => decryptSecret(sealed, randomBytes(32)));
  });

  test("after a key rotation, values sealed with the previous key still open; unknown keys still fail", () => {
    const [previous, current] = [randomBytes(32), randomBytes(32)];
    const sealed = encryptSecret("sk-old", previous);
    assert.equal(decryptSecret(sealed, [current, previous]), "sk-old");
    assert.throws(() => decryptSecret(sealed, [current, randomBytes(32)]));
  });

  test("passwords verify only with the right password", async () => {
    const stored = await hashPassword("correct horse");
    assert.ok(await verifyPassword("correct horse", stored));
    assert.equal(await verifyPassword("wrong horse", stored), false);
  });

  test("credential-looking strings are scrubbed from upstream messages", () => {
    assert.equal(scrubSecrets("Incorrect API key provided: sk-abc***********xyz."), "Incorrect API key provided: [redacted].");
    assert.equal(scrubSecrets("key is custom-secret-value!", ["custom-secret-value"]), "key is [redacted]!");
  });
});
