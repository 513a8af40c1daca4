import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Limits } from "@/lib/auth/token-record";
import { compileWindows, limitWindowsSchema } from "@/lib/limits/limit-windows";
import { periodStart } from "@/lib/limits/quota-period";
import { SpendLimiter, type Reservation, type Spend } from "@/lib/limits/spend-limiter";
import type { QuotaSubject } from "@/lib/usage/request-log-store";
import { MemorySharedState } from "@/lib/state/memory-shared-state";

const limits = (fields: Partial<Limits>): Limits => ({ models: null, rpm: null, tpm: null, quotaTokens: null, budgetUsd: null, quotaPeriod: "none", windows: [], ...fields });
const subject = { kind: "token" as const, id: "t1" };

/** One payer's reservation: its quotas, token rate and windows. */
async function reserveOne(limiter: SpendLimiter, payer: QuotaSubject, payerLimits: Limits, wanted: Spend, now = new Date(), model?: string): Promise<Reservation> {
  const [reservation] = await limiter.reserveAll([{ subject: payer, limits: payerLimits }], wanted, model, now);
  return reservation!;
}

describe("quota reservations", () => {
  test("concurrent reservations never pass the quota, counting what the database says was spent", async () => {
    let loads = 0;
    const limiter = new SpendLimiter(new MemorySharedState(), async () => {
      loads += 1;
      return { tokens: 100, usd: 0 };
    });
    const results = await Promise.allSettled(Array.from({ length: 50 }, () => reserveOne(limiter, subject, limits({ quotaTokens: 1000 }), { tokens: 100, usd: 0 })));
    assert.equal(results.filter((result) => result.status === "fulfilled").length, 9);
    assert.equal(loads, 1, "concurrent first uses share one load");
    const refusal = results.find((result) => result.status === "rejected") as PromiseRejectedResult;
    assert.equal(refusal.reason.code, "insufficient_quota");
  });

  test("settling returns what was not spent", async () => {
    const limiter = new SpendLimiter(new MemorySharedState(), async () => ({ tokens: 0, usd: 0 }));
    const held = await reserveOne(limiter, subject, limits({ quotaTokens: 100 }), { tokens: 100, usd: 0 });
    await assert.rejects(reserveOne(limiter, subject, limits({ quotaTokens: 100 }), { tokens: 10, usd: 0 }));
    await limiter.settle(held, { tokens: 30, usd: 0 });
    await limiter.settle(held, { tokens: 0, usd: 0 }); // only the first settlement counts
    await reserveOne(limiter, subject, limits({ quotaTokens: 100 }), { tokens: 70, usd: 0 });
    await assert.rejects(reserveOne(limiter, subject, limits({ quotaTokens: 100 }), { tokens: 1, usd: 0 }));
  });

  test("a USD budget is reserved like tokens, and a refused budget releases the tokens it held", async () => {
    const limiter = new SpendLimiter(new MemorySharedState(), async () => ({ tokens: 0, usd: 0.9 }));
    const both = limits({ quotaTokens: 1000, budgetUsd: 1 });
    await assert.rejects(reserveOne(limiter, subject, both, { tokens: 500, usd: 0.2 }), { code: "insufficient_quota" });
    await reserveOne(limiter, subject, both, { tokens: 1000, usd: 0.1 });
  });

  test("a periodic quota counts from its period's start and says when it resets", async () => {
    const now = new Date("2026-11-25T15:00:00Z"); // a Wednesday
    assert.equal(periodStart("daily", now).toISOString(), "2026-11-25T00:00:00.000Z");
    assert.equal(periodStart("weekly", now).toISOString(), "2026-11-23T00:00:00.000Z");
    assert.equal(periodStart("monthly", now).toISOString(), "2026-11-01T00:00:00.000Z");
    const seen: Date[] = [];
    const limiter = new SpendLimiter(new MemorySharedState(), async (_subject, _period, since) => {
      seen.push(since);
      return { tokens: 50, usd: 0 };
    });
    const error = await reserveOne(limiter, subject, limits({ quotaTokens: 60, quotaPeriod: "daily" }), { tokens: 20, usd: 0 }, now).catch((thrown) => thrown);
    assert.equal(seen[0]!.toISOString(), "2026-11-25T00:00:00.000Z");
    assert.equal(error.retryAfterSeconds, 9 * 3600);
  });
});

describe("limit windows", () => {
  test("every window a request counts in is charged; a per-model window only for its models", async () => {
    const limiter = new SpendLimiter(new MemorySharedState(), async () => ({ tokens: 0, usd: 0 }));
    const windowed = limits({
      windows: compileWindows([
        { window: "5h", requests: 3 },
        { window: "1h", requests: 1, models: ["opus"] },
      ]),
    });
    await reserveOne(limiter, subject, windowed, { tokens: 10, usd: 0 }, new Date(), "opus");
    const perModel = await reserveOne(limiter, subject, windowed, { tokens: 10, usd: 0 }, new Date(), "opus").catch((error) => error);
    assert.equal(perModel.code, "limit_window_exceeded");
    assert.match(perModel.message, /the 1h window for opus/);
    assert.ok(perModel.retryAfterSeconds > 3500 && perModel.retryAfterSeconds <= 3600);
    await reserveOne(limiter, subject, windowed, { tokens: 10, usd: 0 }, new Date(), "haiku");
    await reserveOne(limiter, subject, windowed, { tokens: 10, usd: 0 }, new Date(), "haiku");
    const overall = await reserveOne(limiter, subject, windowed, { tokens: 10, usd: 0 }, new Date(), "haiku").catch((error) => error);
    assert.match(overall.message, /the 5h window of this key allows 3 requests/);
  });

  test("settling turns the worst case into what was used; a request refused by a later limit is not counted", async () => {
    const limiter = new SpendLimiter(new MemorySharedState(), async () => ({ tokens: 0, usd: 0 }));
    const windowed = limits({ tpm: 120, windows: compileWindows([{ window: "day", tokens: 1000, requests: 10 }]) });
    const held = await reserveOne(limiter, subject, windowed, { tokens: 100, usd: 0 });
    await limiter.settle(held, { tokens: 40, usd: 0 });
    // The token rate refuses the next one: the window, charged after it, is never charged for it.
    await assert.rejects(reserveOne(limiter, subject, windowed, { tokens: 100, usd: 0 }), { code: "rate_limit_exceeded" });
    const [day] = await limiter.windowUsage(subject, windowed);
    assert.deepEqual(day!.used, { tokens: 40, usd: 0, requests: 1 });
    assert.equal(new Date(day!.openedAt!).toISOString(), periodStart("daily").toISOString());
  });

  test("a calendar window missing from the shared state starts from the database's count for its models", async () => {
    const asked: unknown[] = [];
    const limiter = new SpendLimiter(
      new MemorySharedState(),
      async () => ({ tokens: 0, usd: 0 }),
      async (_subject, since, models) => {
        asked.push([since.toISOString(), models]);
        return { tokens: 950, usd: 0, requests: 4 };
      },
    );
    const windowed = limits({ windows: compileWindows([{ window: "month", tokens: 1000, models: ["opus"] }]) });
    const refused = await reserveOne(limiter, subject, windowed, { tokens: 100, usd: 0 }, new Date(), "opus").catch((error) => error);
    assert.match(refused.message, /950 tokens are used/);
    assert.deepEqual(asked, [[periodStart("monthly").toISOString(), ["opus"]]]);
  });

  test("a request one member's cap refuses never holds the team's window, even for a moment", async () => {
    // The state pauses after every window charge, whatever it answered: the old order (the team's
    // window, then the member's) held the team's last room while ana's request waited to be
    // refused by her cap, and ben's request, sent meanwhile, was refused for that hold.
    const state = new MemorySharedState();
    let paused: Promise<void> | undefined;
    const reserveWindows = state.reserveWindows.bind(state);
    state.reserveWindows = async (charges) => {
      const pause = paused;
      const result = await reserveWindows(charges);
      await pause;
      return result;
    };
    const limiter = new SpendLimiter(state, async () => ({ tokens: 0, usd: 0 }));
    const team = { subject: { kind: "team" as const, id: "t" }, limits: limits({ windows: compileWindows([{ window: "month", usd: 1 }]) }) };
    const member = (id: string, usd: number) => ({ subject: { kind: "member" as const, id: `t:${id}` }, limits: limits({ windows: compileWindows([{ window: "month", usd }]) }) });
    const ana = [team, member("ana", 0.5)];
    const ben = [team, member("ben", 0.6)];
    await limiter.reserveAll(ana, { tokens: 0, usd: 0.5 });
    await limiter.reserveAll(ben, { tokens: 0, usd: 0.4 });

    let resume = () => {};
    paused = new Promise<void>((resolve) => {
      resume = resolve;
    });
    const anaRefused = limiter.reserveAll(ana, { tokens: 0, usd: 0.1 }).catch((error) => error);
    paused = undefined;
    const benHeld = await limiter.reserveAll(ben, { tokens: 0, usd: 0.1 });
    resume();
    const refusal = await anaRefused;
    assert.equal(refusal.code, "limit_window_exceeded");
    assert.match(refusal.message, /your share of this key's team/);
    assert.equal(benHeld.length, 2);
    const [teamWindow] = await limiter.windowUsage(team.subject, team.limits);
    assert.ok(Math.abs(teamWindow!.used.usd - 1) < 1e-9, `the team's window holds ${teamWindow!.used.usd}`);
  });

  test("windows are validated, and a window's id stays while its limits change", () => {
    const invalid = (value: unknown) => limitWindowsSchema.safeParse(value).error?.issues[0]?.message;
    assert.match(invalid([{ window: "5x", tokens: 1 }])!, /window must be/);
    assert.match(invalid([{ window: "0s", tokens: 1 }])!, /window must be/);
    assert.match(invalid([{ window: "400d", tokens: 1 }])!, /window must be/);
    assert.match(invalid([{ window: "week" }])!, /at least one of tokens, usd or requests/);
    assert.match(invalid([{ window: "week", requests: 1, extra: 1 }])!, /Unrecognized key/);
    assert.equal(
      invalid([
        { window: "90m", usd: 1.5, models: ["a"] },
        { window: "month", tokens: 5 },
      ]),
      undefined,
    );
    const [before] = compileWindows([{ window: "5h", tokens: 10, models: ["b", "a"] }]);
    const [after, twin] = compileWindows([
      { window: "5h", tokens: 99, models: ["a", "b"] },
      { window: "5h", requests: 1, models: ["a", "b"] },
    ]);
    assert.equal(before!.id, after!.id);
    assert.notEqual(after!.id, twin!.id, "two windows of one span and models count apart");
    assert.equal(after!.durationMs, 5 * 3_600_000);
  });
});
