import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { test } from "node:test";
import type { SharedState, WindowCharge } from "@/lib/state/shared-state";

// What every SharedState must do for limit windows and leases, run against the memory
// store (unit pass) and against two Redis connections standing for two processes.

const charge = (key: string, fields: Partial<WindowCharge> = {}): WindowCharge => ({
  key,
  ttlMs: 60_000,
  amounts: { tokens: 10, usd: 0.5, requests: 1 },
  limits: { tokens: null, usd: null, requests: null },
  ...fields,
});

export function windowStateContract(open: () => { first: SharedState; second: SharedState }): void {
  test("windows: all or none are charged, and the refusal says which window, what is used and when it has room", async () => {
    const { first, second } = open();
    const [a, b] = [`window:test:${randomUUID()}`, `window:test:${randomUUID()}`];
    const limited = (key: string, requests: number) => charge(key, { limits: { tokens: null, usd: null, requests } });
    assert.equal((await first.reserveWindows([limited(a, 5), limited(b, 1)])).ok, true);
    const refused = await second.reserveWindows([limited(a, 5), limited(b, 1)]);
    assert.equal(refused.ok, false);
    if (refused.ok) return;
    assert.deepEqual([refused.index, refused.unit, refused.used], [1, "requests", 1]);
    assert.ok(refused.retryAfterMs > 50_000 && refused.retryAfterMs <= 60_000);
    const [stateA] = await first.readWindows([a]);
    assert.equal(stateA?.used.requests, 1, "the refused charge added nothing to the other window");
    assert.equal(stateA?.used.tokens, 10);
  });

  test("windows: concurrent charges from two processes never pass a limit", async () => {
    const { first, second } = open();
    const key = `window:test:${randomUUID()}`;
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        (index % 2 ? first : second).reserveWindows([charge(key, { amounts: { tokens: 7, usd: 0, requests: 1 }, limits: { tokens: 100, usd: null, requests: null } })]),
      ),
    );
    assert.equal(results.filter((result) => result.ok).length, 14);
    assert.equal((await first.readWindows([key]))[0]?.used.tokens, 98);
  });

  test("windows: a rolling window opens at its first charge and reopens empty once run out; a late settlement leaves the new one alone", async () => {
    const { first, second } = open();
    const key = `window:test:${randomUUID()}`;
    const reserved = await first.reserveWindows([charge(key, { ttlMs: 300 })]);
    assert.ok(reserved.ok);
    await sleep(400);
    assert.equal((await second.readWindows([key]))[0], undefined);
    const reopened = await second.reserveWindows([charge(key, { ttlMs: 60_000 })]);
    assert.ok(reopened.ok && reopened.starts[0]! > reserved.starts[0]!);
    await first.settleWindows([{ key, start: reserved.starts[0]!, deltas: { tokens: -10, usd: -0.5, requests: 0 } }]);
    assert.equal((await first.readWindows([key]))[0]?.used.tokens, 10, "the old period's settlement was dropped");
    await first.settleWindows([{ key, start: reopened.starts[0]!, deltas: { tokens: -4, usd: 0, requests: 0 } }]);
    assert.equal((await second.readWindows([key]))[0]?.used.tokens, 6);
  });

  test("windows: a missing calendar window is loaded from the database once, and counted from there", async () => {
    const { first, second } = open();
    const key = `window:test:${randomUUID()}`;
    let loads = 0;
    const seeded = charge(key, {
      limits: { tokens: 100, usd: null, requests: null },
      seed: { load: async () => ((loads += 1), await sleep(20), { tokens: 85, usd: 1, requests: 3 }) },
    });
    const results = await Promise.all([first.reserveWindows([seeded]), second.reserveWindows([seeded]), first.reserveWindows([seeded])]);
    assert.equal(results.filter((result) => result.ok).length, 1, "85 loaded + 10 fits once under 100");
    assert.ok(loads >= 1 && loads <= 3);
    const [state] = await second.readWindows([key]);
    assert.ok(state && Math.abs(state.start - Date.now()) < 5000, "created when it was rebuilt");
    assert.equal(state?.used.tokens, 95);
    assert.equal(state?.used.requests, 4);
  });

  test("leases: one holder at a time; it renews its own; another takes it once it ran out", async () => {
    const { first, second } = open();
    const name = `test-${randomUUID()}`;
    // Long enough that the steps between a take and the checks of it fit on a loaded machine.
    const ttlMs = 2000;
    assert.equal(await first.acquireLease(name, "a", ttlMs), true);
    assert.equal(await second.acquireLease(name, "b", ttlMs), false);
    const renewing = Date.now();
    assert.equal(await first.acquireLease(name, "a", ttlMs), true);
    // Once the renewed lease runs out, and not before, the other holder takes it.
    while (!(await second.acquireLease(name, "b", ttlMs))) {
      assert.ok(Date.now() - renewing < 30 * ttlMs, "the lease never ran out");
      await sleep(50);
    }
    // (The renewal was stored after `renewing`; a few ms for the clocks' rounding.)
    assert.ok(Date.now() - renewing >= ttlMs - 10, "taken only once the renewed lease ran out");
    assert.equal(await first.acquireLease(name, "a", ttlMs), false);
    await first.releaseLease(name, "a"); // not the holder: nothing happens
    assert.equal(await first.acquireLease(name, "a", ttlMs), false);
    await second.releaseLease(name, "b");
    assert.equal(await first.acquireLease(name, "a", ttlMs), true);
  });
}
