import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, test } from "node:test";
import { MemorySharedState } from "@/lib/state/memory-shared-state";
import type { SharedState } from "@/lib/state/shared-state";
import { twoRedisStates } from "../helpers/two-redis-states";

// Sliding values (session pins): what one process stores the other reads, and each read
// starts the TTL again, so a session that keeps talking keeps its pin and an idle one loses it.

const redis = twoRedisStates();

async function slides(writer: SharedState, reader: SharedState) {
  const key = `test:sliding:${randomUUID()}`;
  // A 3 s TTL read every second: it outlives its first TTL only by being renewed, and each
  // step has 2 s to spare on a loaded machine.
  const ttl = 3;
  await writer.putSliding(key, { channelId: "a", key: "k1" }, ttl);
  const stored = Date.now();
  assert.deepEqual(await reader.getSliding(key, ttl), { channelId: "a", key: "k1" });
  while (Date.now() - stored < 1000 * ttl + 500) {
    await sleep(1000);
    assert.deepEqual(await reader.getSliding(key, ttl), { channelId: "a", key: "k1" }, "each read renews the TTL");
  }
  await sleep(1000 * ttl + 200);
  assert.equal(await reader.getSliding(key, ttl), undefined, "an idle value expires");
}

describe("sliding values", () => {
  test("Redis: one process writes, the other reads and renews", () => slides(redis.first, redis.second));
  test("memory: the same within one process", async () => {
    const memory = new MemorySharedState();
    await slides(memory, memory);
    await memory.close();
  });
});
