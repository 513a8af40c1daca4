import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ChannelStates } from "@/lib/routing/channel-states";
import { MemorySharedState } from "@/lib/state/memory-shared-state";

const options = { consecutiveFailures: 3, errorRatio: 0.5, windowMs: 10_000, minimumRequests: 6, openMs: 1000 };

function states() {
  let now = 1_000_000;
  const clock = { advance: (ms: number) => (now += ms) };
  return { states: new ChannelStates(new MemorySharedState(), options, () => now), clock };
}

describe("circuit breaker per channel and per channel+model", () => {
  test("opens after consecutive failures, lets exactly one probe through when due, closes on its success", () => {
    const { states: channelStates, clock } = states();
    for (let index = 0; index < 3; index += 1) {
      assert.equal(channelStates.tryAcquire("c", "m"), true);
      channelStates.recordFailure("c", "m", "boom");
    }
    assert.equal(channelStates.tryAcquire("c", "m"), false, "open");
    assert.equal(channelStates.tryAcquire("c", "other-model"), false, "the channel's own circuit is open too");
    assert.equal(channelStates.view("c").circuit, "open");
    clock.advance(1001);
    assert.equal(channelStates.tryAcquire("c", "m"), true, "one probe");
    assert.equal(channelStates.tryAcquire("c", "m"), false, "only one");
    channelStates.recordSuccess("c", "m");
    assert.equal(channelStates.view("c").circuit, "closed");
    assert.equal(channelStates.tryAcquire("c", "m"), true);
  });

  test("a failed probe opens it again; a probe that says nothing about the channel is released", () => {
    const { states: channelStates, clock } = states();
    for (let index = 0; index < 3; index += 1) channelStates.recordFailure("c", "m", "boom");
    clock.advance(1001);
    assert.equal(channelStates.tryAcquire("c", "m"), true);
    channelStates.release("c", "m");
    assert.equal(channelStates.tryAcquire("c", "m"), true, "released, so the next request probes");
    channelStates.recordFailure("c", "m", "still down");
    assert.equal(channelStates.tryAcquire("c", "m"), false);
  });

  test("opens on the error ratio over the window even without a run of failures", () => {
    const { states: channelStates } = states();
    for (const failed of [false, true, false, true, false, true]) {
      if (failed) channelStates.recordFailure("c", "m", "flaky");
      else channelStates.recordSuccess("c", "m");
    }
    assert.equal(channelStates.tryAcquire("c", "m"), false);
  });

  test("a cool-down skips only that channel and model, until it ends", () => {
    const { states: channelStates, clock } = states();
    channelStates.coolDown("c", "m", 1_000_000 + 5000, "429");
    assert.equal(channelStates.tryAcquire("c", "m"), false);
    assert.equal(channelStates.tryAcquire("c", "n"), true);
    assert.deepEqual(channelStates.skipped(["c"], "m"), { until: 1_000_000 + 5000, rateLimited: true, modelRefused: false });
    clock.advance(5001);
    assert.equal(channelStates.tryAcquire("c", "m"), true);
  });

  test("skipped: rate limited only while every channel is skipped for a cool-down alone, not an open circuit", () => {
    const { states: channelStates } = states();
    channelStates.coolDown("a", "m", 1_000_000 + 2000, "429");
    channelStates.coolDown("b", "m", 1_000_000 + 9000, "429");
    assert.deepEqual(channelStates.skipped(["a", "b"], "m"), { until: 1_000_000 + 2000, rateLimited: true, modelRefused: false });
    for (let i = 0; i < 5; i += 1) channelStates.recordFailure("c", "m", "500");
    assert.equal(channelStates.tryAcquire("c", "m"), false);
    assert.equal(channelStates.skipped(["a", "b", "c"], "m").rateLimited, false);
  });

  test("a model its upstream refused rests that channel and model: unavailable (503), not rate limited", () => {
    const { states: channelStates } = states();
    channelStates.coolDown("a", "m", 1_000_000 + 60_000, "403 model", "unavailable");
    assert.equal(channelStates.tryAcquire("a", "m"), false);
    assert.equal(channelStates.tryAcquire("a", "other"), true, "the channel's other models serve");
    assert.deepEqual(channelStates.skipped(["a"], "m"), { until: 1_000_000 + 60_000, rateLimited: false, modelRefused: true });
    channelStates.coolDown("b", "m", 1_000_000 + 2000, "429");
    assert.equal(channelStates.skipped(["a", "b"], "m").modelRefused, false, "one channel is only rate limited");
  });
});
