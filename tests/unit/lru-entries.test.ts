import assert from "node:assert/strict";
import { describe, test } from "node:test";
import v8 from "node:v8";
import vm from "node:vm";
import { LRUCache } from "lru-cache";
import { entriesAtMost } from "@/lib/state/lru-entries";

// The token cache and the sliding windows hold up to tens of thousands of entries: bounded
// by a count, without lru-cache's arrays for all of them allocated when the cache is made.

describe("entriesAtMost", () => {
  test("keeps at most that many entries, dropping the least recently used", () => {
    const cache = new LRUCache<string, { value: number }>({ ...entriesAtMost(3), ttl: 60_000 });
    for (let index = 0; index < 5; index += 1) cache.set(`key${index}`, { value: index });
    assert.equal(cache.size, 3);
    assert.deepEqual([...cache.keys()], ["key4", "key3", "key2"]);
    // Reading an entry makes it the most recent: the next one in pushes out key3.
    assert.deepEqual(cache.get("key2"), { value: 2 });
    cache.set("key5", { value: 5 });
    assert.deepEqual([...cache.keys()], ["key5", "key2", "key4"]);
  });

  test("fetched entries count the same way", async () => {
    const cache = new LRUCache<string, { length: number }>({ ...entriesAtMost(2), ttl: 60_000, fetchMethod: async (key) => ({ length: key.length }) });
    assert.deepEqual(await cache.fetch("abc"), { length: 3 });
    await cache.fetch("abcd");
    await cache.fetch("a");
    assert.deepEqual([...cache.keys()], ["a", "abcd"]);
  });

  test("a cache for a million entries holds no storage for them until they come", () => {
    // Measured right after a full collection, so garbage collected in between cannot hide what a cache holds.
    v8.setFlagsFromString("--expose-gc");
    const collect = vm.runInNewContext("gc") as () => void;
    const heap = () => process.memoryUsage().heapUsed;
    collect();
    // With `max`, lru-cache allocates its key and value arrays at full length at once (8 MB each here).
    const before = heap();
    const preallocated = new LRUCache<string, object>({ max: 1_000_000 });
    assert.ok(heap() - before > 10_000_000, "the comparison holds: `max` allocates up front");
    collect();
    const start = heap();
    const cache = new LRUCache<string, object>({ ...entriesAtMost(1_000_000), ttl: 60_000 });
    cache.set("one", {});
    assert.ok(heap() - start < 1_000_000, `grew by ${heap() - start} bytes`);
    assert.equal(preallocated.size + cache.size, 1);
  });
});
