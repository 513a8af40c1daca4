import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, test } from "node:test";
import { twoRedisStates } from "../helpers/two-redis-states";

// The shared state's bounded store in Redis (the response cache with REDIS_URL): what one
// process keeps another reads, entries leave after their TTL, and past the size bound the
// entries nearest their expiry are evicted, atomically in one script.

const store = `test-bounded-${randomBytes(4).toString("hex")}`;
const redis = twoRedisStates();

describe("the bounded store in Redis", () => {
  test("one process keeps, another reads; past the bound the nearest expiry goes first; a TTL ends an entry", async () => {
    const value = (letter: string) => letter.repeat(100);
    await redis.first.putBounded(store, "short", value("a"), 10, 250);
    await redis.first.putBounded(store, "long", value("b"), 60, 250);
    assert.equal(await redis.second.getBounded(store, "short"), value("a"));
    await redis.second.putBounded(store, "newest", value("c"), 30, 250);
    assert.equal(await redis.first.getBounded(store, "short"), undefined, "evicted to make room");
    assert.equal(await redis.first.getBounded(store, "long"), value("b"));
    await redis.first.putBounded(store, "newest", value("d"), 30, 250);
    assert.equal(await redis.second.getBounded(store, "long"), value("b"), "a replaced entry is not counted twice");
    await redis.first.putBounded(store, "huge", "x".repeat(300), 60, 250);
    assert.equal(await redis.first.getBounded(store, "huge"), undefined, "larger than the bound: never kept");

    await redis.first.putBounded(store, "brief", "e", 1, 250);
    assert.equal(await redis.second.getBounded(store, "brief"), "e");
    await sleep(1200);
    assert.equal(await redis.second.getBounded(store, "brief"), undefined);
    // An expired entry leaves the size total at the next write: three 100-byte values fit again after two expire.
    await redis.first.putBounded(store, "after", value("f"), 60, 250);
    assert.equal(await redis.first.getBounded(store, "long"), value("b"));
    assert.equal(await redis.first.getBounded(store, "after"), value("f"));
  });
});
