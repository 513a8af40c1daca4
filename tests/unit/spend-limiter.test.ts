import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Limits } from "@/lib/auth/token-record";
import { periodStart } from "@/lib/limits/quota-period";
import { SpendLimiter } from "@/lib/limits/spend-limiter";
import { MemorySharedState } from "@/lib/state/memory-shared-state";

const limits = (fields: Partial<Limits>): Limits => ({ models: null, rpm: null, tpm: null, quotaTokens: null, budgetUsd: null, quotaPeriod: "none", windows: [], ...fields });
const subject = { kind: "token" as const, id: "t1" };

describe("quota reservations", () => {
  test("concurrent reservations never pass the quota, counting what the database says was spent", async () => {
    let loads = 0;
    const limiter = new SpendLimiter(new MemorySharedState(), async () => {
      loads += 1;
      return { tokens: 100, usd: 0 };
    });
    const results = await Promise.allSettled(Array.from({ length: 50 }, () => limiter.reserve(subject, limits({ quotaTokens: 1000 }), { tokens: 100, usd: 0 })));
    assert.equal(results.filter((result) => result.status === "fulfilled").length, 9);
    assert.equal(loads, 1, "concurrent first uses share one load");
    const refusal = results.find((result) => result.status === "rejected") as PromiseRejectedResult;
    assert.equal(refusal.reason.code, "insufficient_quota");
  });

  test("settling returns what was not spent", async () => {
    const limiter = new SpendLimiter(new MemorySharedState(), async () => ({ tokens: 0, usd: 0 }));
    const held = await limiter.reserve(subject, limits({ quotaTokens: 100 }), { tokens: 100, usd: 0 });
    await assert.rejects(limiter.reserve(subject, limits({ quotaTokens: 100 }), { tokens: 10, usd: 0 }));
    await limiter.settle(held, { tokens: 30, usd: 0 });
    await limiter.settle(held, { tokens: 0, usd: 0 }); // only the first settlement counts
    await limiter.reserve(subject, limits({ quotaTokens: 100 }), { tokens: 70, usd: 0 });
    await assert.rejects(limiter.reserve(subject, limits({ quotaTokens: 100 }), { tokens: 1, usd: 0 }));
  });

  test("a USD budget is reserved like tokens, and a refused budget releases the tokens it held", async () => {
    const limiter = new SpendLimiter(new MemorySharedState(), async () => ({ tokens: 0, usd: 0.9 }));
    const both = limits({ quotaTokens: 1000, budgetUsd: 1 });
    await assert.rejects(limiter.reserve(subject, both, { tokens: 500, usd: 0.2 }), { code: "insufficient_quota" });
    await limiter.reserve(subject, both, { tokens: 1000, usd: 0.1 });
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
    const error = await limiter.reserve(subject, limits({ quotaTokens: 60, quotaPeriod: "daily" }), { tokens: 20, usd: 0 }, now).catch((thrown) => thrown);
    assert.equal(seen[0]!.toISOString(), "2026-11-25T00:00:00.000Z");
    assert.equal(error.retryAfterSeconds, 9 * 3600);
  });
});
