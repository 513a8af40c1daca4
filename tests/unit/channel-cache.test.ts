import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, test } from "node:test";
import { encryptSecret } from "@/lib/crypto/encryption";
import type { Database } from "@/lib/db/client";
import { ChannelCache } from "@/lib/channels/channel-cache";

// The channel cache reloads every second; a channel whose row has not changed must stay the
// same object, or everything kept per channel (its transport, a SigV4 signer's key cache, a
// cloud's OAuth token) is thrown away and built again every second.

const key = randomBytes(32);
type Row = Record<string, unknown> & { id: string };
const baseRow: Row = {
  id: "c1",
  name: "one",
  type: "openai",
  baseUrl: "http://127.0.0.1:9/v1",
  apiKeyEncrypted: encryptSecret("sk-upstream", key),
  models: ["m"],
  modelMap: {},
  priority: 0,
  weight: 1,
  enabled: true,
  capabilities: [],
  prices: {},
  timeouts: {},
  settings: {},
  autoDisabledReason: null,
  autoDisabledAt: null,
  lastError: null,
  lastLatencyMs: null,
  createdAt: new Date(0),
  updatedAt: new Date(0),
};

function cacheOver(rows: () => Row[]) {
  const database = { channel: { findMany: async () => rows() } } as unknown as Database;
  return new ChannelCache(database, [key], (error) => assert.fail(String(error)));
}

describe("the channel cache", () => {
  test("an unchanged row keeps its channel object across reloads, health updates included", async () => {
    let row = { ...baseRow };
    const cache = cacheOver(() => [row]);
    await cache.reload();
    const first = cache.all()[0]!;
    assert.equal(first.apiKey, "sk-upstream");
    row = { ...row, lastError: "HTTP 500", lastLatencyMs: 12, updatedAt: new Date(5000) };
    await cache.reload();
    assert.equal(cache.all()[0], first, "same object");
  });

  test("a changed row is built anew; a pending auto-disable is a copy, never a change to the kept object", async () => {
    let row = { ...baseRow };
    const cache = cacheOver(() => [row]);
    await cache.reload();
    const first = cache.all()[0]!;
    row = { ...row, priority: 5 };
    await cache.reload();
    const second = cache.all()[0]!;
    assert.notEqual(second, first);
    assert.equal(second.priority, 5);
    cache.markAutoDisabled("c1", "upstream answered HTTP 401");
    await cache.reload();
    assert.equal(cache.all()[0]!.autoDisabledReason, "upstream answered HTTP 401");
    assert.equal(second.autoDisabledReason, null, "the kept object is untouched");
  });

  test("a key pool is decrypted once and kept with its channel; a refused key changes the row and so the channel", async () => {
    let row: Row = { ...baseRow, apiKeysEncrypted: [encryptSecret("sk-second", key)], disabledKeys: {} };
    const cache = cacheOver(() => [row]);
    await cache.reload();
    const first = cache.all()[0]!;
    assert.deepEqual(first.apiKeys, ["sk-upstream", "sk-second"]);
    assert.equal(first.apiKey, "sk-upstream");
    await cache.reload();
    assert.equal(cache.all()[0], first, "same object while the pool is unchanged");
    row = { ...row, disabledKeys: { abc: "upstream answered HTTP 401" } };
    await cache.reload();
    assert.notEqual(cache.all()[0], first);
    assert.deepEqual(cache.all()[0]!.disabledKeys, { abc: "upstream answered HTTP 401" });
  });
});
