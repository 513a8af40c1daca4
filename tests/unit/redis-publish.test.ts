import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { RedisSharedState } from "@/lib/state/redis-shared-state";

// What an admin change waits for when it tells the other processes: Redis's answer to
// PUBLISH (sent once the event is on every subscriber's connection), but never a Redis
// that does not answer. Against a stand-in client, so the moment of the answer is ours.

function standIn(answer: () => Promise<number>) {
  const published: string[] = [];
  class StandInRedis {
    defineCommand() {}
    publish(_channel: string, text: string) {
      published.push(text);
      return answer();
    }
    subscribe() {
      return Promise.resolve();
    }
    on() {}
    disconnect() {}
    quit() {
      return Promise.resolve();
    }
  }
  const state = new (RedisSharedState as unknown as new (client: unknown, url: string) => RedisSharedState)(StandInRedis, "redis://stand-in");
  return { state, published };
}

describe("publishing an event through Redis", () => {
  test("settles only once Redis has answered, and this process gets the event too", async () => {
    let answer!: (subscribers: number) => void;
    const { state, published } = standIn(() => new Promise((resolve) => (answer = resolve)));
    const seen: unknown[] = [];
    state.subscribe((topic, message) => seen.push([topic, message]));
    let settled = false;
    const publishing = state.publish("invalidate", "tokens").then(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(seen, [["invalidate", "tokens"]]);
    assert.equal(settled, false, "not before Redis answers");
    assert.equal(JSON.parse(published[0]!).message, "tokens");
    answer(2);
    await publishing;
    assert.equal(settled, true);
  });

  test("a Redis that never answers, or fails, does not hold the caller", async () => {
    await standIn(() => new Promise<number>(() => undefined)).state.publish("invalidate", "tokens");
    await standIn(() => Promise.reject(new Error("connection lost"))).state.publish("invalidate", "tokens");
  });
});
