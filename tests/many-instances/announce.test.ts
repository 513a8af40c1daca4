import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import { twoRedisStates } from "../helpers/two-redis-states";

// An admin change is announced to the other processes and answers only once they applied it
// (their caches reloaded), so the next request routes on it whichever process takes it.
// Two Redis connections stand for two processes. (Gateways of other test files may share this
// Redis: they get these events too and apply them at once.)

const states = twoRedisStates();

/**
 * Subscribes `handler` on the second process (the first hears the answers through its own
 * subscription) and returns once both subscriptions hear events.
 */
async function listening(handler: (topic: string, message: unknown) => unknown): Promise<void> {
  // A process applies its own events at once: each probe is sent by the other process.
  const toFirst = `listening-${randomUUID()}`;
  const toSecond = `listening-${randomUUID()}`;
  const heard = { first: false, second: false };
  states.first.subscribe((topic) => {
    if (topic === toFirst) heard.first = true;
  });
  states.second.subscribe((topic, message) => {
    if (topic === toSecond) heard.second = true;
    return handler(topic, message);
  });
  while (!heard.first || !heard.second) {
    if (!heard.second) await states.first.publish(toSecond, null);
    if (!heard.first) await states.second.publish(toFirst, null);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test("an announcement settles once the other process has applied it, not when it was sent", async () => {
  const topic = `announce-test-${randomUUID()}`;
  let release = () => {};
  const reloaded = new Promise<void>((resolve) => (release = resolve));
  let heard = () => {};
  const received = new Promise<void>((resolve) => (heard = resolve));
  await listening((event) => {
    if (event !== topic) return undefined;
    heard();
    return reloaded; // a cache still loading
  });

  let settled = false;
  const announced = states.first.announce(topic, "channels").then(() => (settled = true));
  await received;
  // The other process has it but has not applied it. A command sent after the PUBLISH on the
  // same connection has its answer, so PUBLISH has answered too: sent is not enough to settle.
  await states.first.getJson(`absent-${topic}`);
  await new Promise((resolve) => setImmediate(resolve));
  const whileLoading = settled;
  release();
  await announced;
  assert.equal(whileLoading, false, "the announcement waited for the other process's reload");
  assert.equal(settled, true);
});

test("a process that never applies it holds the announcement only a few seconds", async () => {
  const topic = `announce-stuck-${randomUUID()}`;
  await listening((event) => (event === topic ? new Promise(() => {}) : undefined));
  const started = Date.now();
  await states.first.announce(topic, "models");
  const waited = Date.now() - started;
  assert.ok(waited >= 2_900, `waited ${waited} ms for the stuck process`);
});
