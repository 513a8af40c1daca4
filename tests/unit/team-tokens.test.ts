import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { toTokenRecord } from "@/lib/auth/token-record";
import type { Token } from "@/lib/db/generated/client";
import { checkedEndUser, endUserOf, endUserSubjectId, loggedEndUser, payersWithEndUser } from "@/lib/teams/end-users";
import { subjectUsageSince } from "@/lib/teams/subject-usage";

// A team token's record (who pays, which models, whether it works) and an end user's name,
// from the fields and header an app may name them in.

const headers = (values: Record<string, string>) => ({ get: (name: string) => values[name] ?? null });

function tokenRow(fields: Partial<Token> = {}): Token {
  const now = new Date();
  return {
    id: "tok_1",
    name: "app",
    keyHash: "h",
    lookupKey: null,
    keyPrefix: "sk-",
    userId: "user_1",
    enabled: true,
    expiresAt: null,
    models: [],
    quotaTokens: null,
    usedTokens: 0n,
    rpm: null,
    tpm: null,
    budgetUsd: null,
    usedUsd: 0,
    quotaPeriod: "none",
    limits: [],
    cacheTtlSeconds: null,
    teamId: null,
    endUserLimits: [],
    lastUsedAt: null,
    createdAt: now,
    updatedAt: now,
    ...fields,
  } as Token;
}

const team = {
  id: "team_1",
  models: ["a", "b"],
  limits: [{ window: "month", usd: 1 }],
  endUserLimits: [{ window: "day", requests: 3 }],
  member: { limits: [{ window: "month", usd: 0.6 }] },
};

describe("team tokens", () => {
  test("pay the token, the team and the creator's member cap; models are both lists' intersection", () => {
    const record = toTokenRecord(tokenRow({ teamId: "team_1", models: ["b", "c"], endUserLimits: [{ window: "1h", tokens: 100 }] }), null, team);
    assert.equal(record.enabled, true);
    assert.deepEqual(
      record.payers.map((payer) => `${payer.subject.kind}:${payer.subject.id}`),
      ["token:tok_1", "team:team_1", "member:team_1:user_1"],
    );
    assert.deepEqual([...(record.models ?? [])], ["b"]);
    assert.deepEqual(
      record.endUserWindows?.map((windows) => windows.scope),
      ["token:tok_1", "team:team_1"],
    );
  });

  test("stop working once their creator left the team, or the team is gone", () => {
    assert.equal(toTokenRecord(tokenRow({ teamId: "team_1" }), null, { ...team, member: null }).enabled, false);
    assert.equal(toTokenRecord(tokenRow({ teamId: "team_1" }), null, null).enabled, false);
    assert.equal(toTokenRecord(tokenRow({ teamId: "team_1", userId: null }), null, team).enabled, false);
    assert.equal(toTokenRecord(tokenRow(), null, null).enabled, true, "a token without a team is unaffected");
  });
});

describe("end users", () => {
  test("the first present of body user, safety_identifier, metadata.user_id, then the header", () => {
    const header = headers({ "x-end-user-id": "from-header" });
    assert.equal(endUserOf({ body: { user: "u", safety_identifier: "s", metadata: { user_id: "m" } } }, header), "u");
    assert.equal(endUserOf({ body: { safety_identifier: "s", metadata: { user_id: "m" } } }, header), "s");
    assert.equal(endUserOf({ relay: { body: { metadata: { user_id: "m" } } } }, header), "m");
    assert.equal(endUserOf({ body: { user: "  " } }, header), "from-header");
    assert.equal(endUserOf({ chat: { user: "from-chat" } }, undefined), "from-chat", "Anthropic's metadata.user_id, as a chat's user");
    assert.equal(endUserOf({ body: {} }, headers({})), undefined);
    // Past 256 characters: refused where end-user windows apply, logged shortened (still distinct) elsewhere.
    const long = "x".repeat(257);
    assert.equal(endUserOf({ body: { user: long } }, undefined), long);
    assert.throws(() => checkedEndUser(long), /at most 256 characters/);
    assert.equal(checkedEndUser("x".repeat(256)), "x".repeat(256));
    assert.equal(loggedEndUser("x".repeat(256)), "x".repeat(256));
    assert.equal(loggedEndUser(long).length, 256);
    assert.notEqual(loggedEndUser(long), loggedEndUser(`${long}y`));
  });

  test("each end user gets the token's and the team's windows, under short keys", () => {
    const record = toTokenRecord(tokenRow({ teamId: "team_1", endUserLimits: [{ window: "1h", tokens: 100 }] }), null, team);
    const payers = payersWithEndUser(record, "a".repeat(256));
    assert.equal(payers.length, record.payers.length + 2);
    assert.deepEqual(
      payers.slice(-2).map((payer) => payer.subject.id),
      [endUserSubjectId("token:tok_1", "a".repeat(256)), endUserSubjectId("team:team_1", "a".repeat(256))],
    );
    assert.ok(payers.every((payer) => payer.subject.id.length < 80));
    assert.equal(payersWithEndUser(record, undefined), record.payers, "no end user named: the token's payers");
  });
});

describe("an end user's spend read back from the rollups", () => {
  test("a token's or a team's end user sums that end user's rows on its tokens, by the name the client gave", async () => {
    const queries: unknown[] = [];
    const logStore = {
      usageSince: async () => ({ tokens: 0, usd: 0, requests: 0 }),
      usage: async (query: unknown) => {
        queries.push(query);
        return [{ promptTokens: 30, completionTokens: 12, costUsd: 0.5, charged: 4 }] as never;
      },
    };
    const database = { token: { findMany: async () => [{ id: "tok_a" }, { id: "tok_b" }] } } as never;
    const spentSince = subjectUsageSince(database, logStore);
    const since = new Date("2026-11-01T00:00:00Z");
    const sam = "sam@customer.example";
    assert.deepEqual(await spentSince({ kind: "end-user", id: endUserSubjectId("token:tok_1", sam), label: sam }, since, ["m"]), { tokens: 42, usd: 0.5, requests: 4 });
    assert.deepEqual(await spentSince({ kind: "end-user", id: endUserSubjectId("team:team_1", sam), label: sam }, since), { tokens: 42, usd: 0.5, requests: 4 });
    assert.deepEqual(queries, [
      { from: since, groupBy: [], tokenIds: ["tok_1"], models: ["m"], endUser: sam },
      { from: since, groupBy: [], tokenIds: ["tok_a", "tok_b"], endUser: sam },
    ]);
    // Without the name (never the case for a reservation) nothing can be read back.
    assert.deepEqual(await spentSince({ kind: "end-user", id: endUserSubjectId("token:tok_1", sam) }, since), { tokens: 0, usd: 0, requests: 0 });
  });
});
