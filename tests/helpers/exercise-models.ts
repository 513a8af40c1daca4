import assert from "node:assert/strict";
import type { Database } from "@/lib/db/client";

/** Exercises every model of schema.prisma on a freshly migrated database of either kind. */
export async function exerciseEveryModel(database: Database): Promise<void> {
  const mock = await database.channel.findUnique({ where: { id: "builtin-mock" } });
  assert.equal(mock?.type, "mock");
  assert.deepEqual(mock?.models, ["mock-chat"]);
  assert.ok(mock?.createdAt instanceof Date && !Number.isNaN(mock.createdAt.getTime()));

  // Webhooks (issue 34): one delivery per webhook and event id; due rows found by status and time.
  const hook = await database.webhook.create({ data: { url: "https://hooks.example.com/x", events: ["channel.disabled"], secretEncrypted: "v1.a.b.c" } });
  assert.deepEqual(hook.events, ["channel.disabled"]);
  assert.equal(hook.enabled, true);
  await database.webhookDelivery.create({ data: { webhookId: hook.id, eventId: "evt_1", event: "channel.disabled", payload: "{}" } });
  await assert.rejects(database.webhookDelivery.create({ data: { webhookId: hook.id, eventId: "evt_1", event: "channel.disabled", payload: "{}" } }));
  const due = await database.webhookDelivery.findMany({ where: { status: "pending", nextAttemptAt: { lte: new Date(Date.now() + 1000) } } });
  assert.equal(due.length, 1);
  assert.equal(due[0]?.attempts, 0);
  assert.equal(due[0]?.lockedUntil, null);
  await database.webhookDelivery.deleteMany({ where: { webhookId: hook.id } });
  await database.webhook.delete({ where: { id: hook.id } });

  const user = await database.user.create({ data: { email: "a@example.com", role: "admin", passwordHash: "x" } });
  const expiresAt = new Date("2030-01-01T00:00:00.000Z");
  const token = await database.token.create({
    data: { name: "t", keyHash: "h", keyPrefix: "sk-x…y", userId: user.id, models: ["a", "b"], quotaTokens: 5_000_000_000n, rpm: 60, expiresAt },
  });
  assert.equal(token.enabled, true);
  assert.equal(token.usedTokens, 0n);
  const updated = await database.token.update({ where: { id: token.id }, data: { usedTokens: { increment: 7 } } });
  assert.equal(updated.usedTokens, 7n);
  assert.equal(updated.quotaTokens, 5_000_000_000n);
  assert.deepEqual(updated.models, ["a", "b"]);
  assert.equal(updated.expiresAt?.toISOString(), expiresAt.toISOString());
  await assert.rejects(database.token.create({ data: { name: "dup", keyHash: "h", keyPrefix: "p" } }));

  const channel = await database.channel.create({
    data: { name: "c", type: "openai", models: ["m"], modelMap: { m: "n" }, apiKeyEncrypted: "v1.x.y.z" },
  });
  assert.deepEqual(channel.modelMap, { m: "n" });
  assert.equal(channel.priority, 0);
  assert.equal(channel.weight, 1);

  await database.requestLog.createMany({
    data: [{ id: "r1", endpoint: "/v1/chat/completions", clientFormat: "openai", method: "POST", status: 200, latencyMs: 5, warnings: ["w"], tokenId: token.id }],
  });
  const log = await database.requestLog.findUnique({ where: { id: "r1" } });
  assert.deepEqual(log?.warnings, ["w"]);
  assert.equal(log?.stream, false);

  const limited = await database.token.update({ where: { id: token.id }, data: { tpm: 1000, budgetUsd: 2.5, usedUsd: { increment: 0.125 }, quotaPeriod: "daily" } });
  assert.equal(limited.budgetUsd, 2.5);
  assert.equal(limited.usedUsd, 0.125);
  assert.equal(limited.quotaPeriod, "daily");
  const priced = await database.channel.update({
    where: { id: channel.id },
    data: { capabilities: ["chat"], prices: { m: { input: 1.5, output: 6 } }, timeouts: { idleMs: 1000 }, autoDisabledReason: "401", autoDisabledAt: new Date() },
  });
  assert.deepEqual(priced.prices, { m: { input: 1.5, output: 6 } });
  assert.equal(priced.autoDisabledReason, "401");
  await database.user.update({ where: { id: user.id }, data: { rpm: 5, tpm: 50, quotaTokens: 10n, budgetUsd: 1, quotaPeriod: "monthly", models: ["m"] } });
  await database.requestLog.update({ where: { id: "r1" }, data: { costUsd: 0.5, attempts: [{ channelId: "c", status: 500 }] } });
  assert.equal((await database.requestLog.findUnique({ where: { id: "r1" } }))?.costUsd, 0.5);
  await database.storedResponse.create({
    data: { id: "resp_1", owner: `token:${token.id}`, model: "m", conversation: [{ role: "user", content: "hi" }], response: { id: "resp_1" } },
  });
  assert.deepEqual((await database.storedResponse.findUnique({ where: { id: "resp_1" } }))?.conversation, [{ role: "user", content: "hi" }]);

  const route = await database.modelRoute.create({ data: { name: "m", fallbacks: ["n"], strategy: "latency", contextWindow: 128_000 } });
  assert.deepEqual(route.fallbacks, ["n"]);
  assert.ok(route.updatedAt instanceof Date);
  await assert.rejects(database.modelRoute.create({ data: { name: "m" } }), "one route per model name");
  assert.equal((await database.modelRoute.create({ data: { name: "plain" } })).strategy, "weighted");
  await database.requestLog.update({ where: { id: "r1" }, data: { servedModel: "n" } });
  assert.equal((await database.requestLog.findUnique({ where: { id: "r1" } }))?.servedModel, "n");
  const windows = [
    { window: "5h", requests: 100 },
    { window: "week", tokens: 2_000_000, models: ["m"] },
  ];
  assert.deepEqual((await database.token.update({ where: { id: token.id }, data: { limits: windows } })).limits, windows);
  assert.deepEqual((await database.user.update({ where: { id: user.id }, data: { limits: windows } })).limits, windows);
  const day = new Date("2026-11-23T00:00:00.000Z");
  const hour = { hour: day, tokenId: token.id, userId: user.id, model: "m", channelId: "", statusClass: 2 };
  await database.usageHour.create({ data: { ...hour, requests: 3, charged: 3, promptTokens: 5_000_000_000n, costUsd: 1.5, latency15: 1, firstToken15: 2 } });
  const rollup = await database.usageHour.findUnique({ where: { hour_tokenId_userId_model_channelId_statusClass: hour } });
  assert.equal(rollup?.promptTokens, 5_000_000_000n);
  assert.equal(rollup?.hour.toISOString(), day.toISOString());
  assert.equal(rollup?.firstToken15, 2);
  const { hour: _, ...dayKey } = hour;
  await database.usageDay.create({ data: { ...dayKey, day, requests: 3, charged: 3, completionTokens: 7n, cacheSavedUsd: 0.5 } });
  assert.equal((await database.usageDay.findUnique({ where: { day_tokenId_userId_model_channelId_statusClass: { ...dayKey, day } } }))?.completionTokens, 7n);
  // The end users' rollups (issue 33): the same keys and the end user.
  await database.endUserHour.create({ data: { ...hour, endUser: "alice", requests: 2, costUsd: 0.25, latency3: 1 } });
  assert.equal((await database.endUserHour.findUnique({ where: { hour_tokenId_userId_model_channelId_statusClass_endUser: { ...hour, endUser: "alice" } } }))?.costUsd, 0.25);
  await database.endUserDay.create({ data: { ...dayKey, day, endUser: "alice", requests: 2, promptTokens: 9n } });
  assert.equal((await database.endUserDay.findMany({ where: { tokenId: token.id, endUser: "alice" } }))[0]?.promptTokens, 9n);
  await database.requestLog.update({ where: { id: "r1" }, data: { endUser: "alice" } });
  assert.equal((await database.requestLog.findFirst({ where: { endUser: "alice" } }))?.id, "r1");
  await database.lease.create({ data: { name: "retention", holder: "a", expiresAt: day } });
  assert.equal((await database.lease.updateMany({ where: { name: "retention", expiresAt: { lt: new Date() } }, data: { holder: "b" } })).count, 1);
  await assert.rejects(database.lease.create({ data: { name: "retention", holder: "c", expiresAt: day } }));
  // The response cache: a token's ceiling, the log's verdict, and the store used without Redis.
  assert.equal((await database.token.update({ where: { id: token.id }, data: { cacheTtlSeconds: 60 } })).cacheTtlSeconds, 60);
  await database.requestLog.update({ where: { id: "r1" }, data: { cacheStatus: "hit", cacheSavedUsd: 0.25 } });
  assert.equal((await database.requestLog.findUnique({ where: { id: "r1" } }))?.cacheSavedUsd, 0.25);

  // MCP (issue 35): servers with unique names, token grants, and the server and tool a logged call reached.
  const mcp = await database.mcpServer.create({ data: { name: "github", url: "https://mcp.example.com/mcp", headersEncrypted: "v1.a.b.c", headerNames: ["Authorization"] } });
  assert.equal(mcp.enabled, true);
  assert.equal(mcp.public, false);
  await assert.rejects(database.mcpServer.create({ data: { name: "github", url: "https://other.example.com/mcp" } }));
  await database.token.update({ where: { id: token.id }, data: { mcp: [{ server: "github", tools: ["echo"] }] } });
  assert.deepEqual((await database.token.findUnique({ where: { id: token.id } }))?.mcp, [{ server: "github", tools: ["echo"] }]);
  await database.requestLog.update({ where: { id: "r1" }, data: { mcpServer: "github", mcpTool: "echo" } });
  assert.equal((await database.requestLog.findUnique({ where: { id: "r1" } }))?.mcpTool, "echo");
  await database.responseCacheEntry.create({ data: { key: "k", value: "{}", bytes: 2, expiresAt } });
  assert.equal((await database.responseCacheEntry.aggregate({ _sum: { bytes: true } }))._sum.bytes, 2);

  await database.setting.upsert({ where: { key: "openSignup" }, create: { key: "openSignup", value: "true" }, update: { value: "true" } });
  assert.equal((await database.setting.findUnique({ where: { key: "openSignup" } }))?.value, "true");

  // Teams (issue 33): a team with a member and a token, an end user's totals, and what deletes cascade to.
  const team = await database.team.create({ data: { name: "platform", models: ["m"], limits: windows, endUserLimits: [{ window: "day", requests: 5 }], mcp: ["docs"] } });
  await database.teamMember.create({ data: { teamId: team.id, userId: user.id, role: "admin", limits: [{ window: "month", usd: 1 }] } });
  await assert.rejects(database.teamMember.create({ data: { teamId: team.id, userId: user.id } }), "one membership per team and user");
  await database.token.update({ where: { id: token.id }, data: { teamId: team.id, endUserLimits: [{ window: "1h", tokens: 10 }] } });
  await database.endUser.create({ data: { tokenId: token.id, endUser: "alice", requests: 1, tokens: 5_000_000_000n, usd: 0.5 } });
  const endUser = await database.endUser.update({ where: { tokenId_endUser: { tokenId: token.id, endUser: "alice" } }, data: { requests: { increment: 1 } } });
  assert.equal(endUser.requests, 2);
  assert.equal(endUser.tokens, 5_000_000_000n);
  const withTeam = await database.team.findUnique({ where: { id: team.id }, include: { members: true, tokens: true } });
  assert.deepEqual(
    withTeam?.members.map((member) => member.role),
    ["admin"],
  );
  assert.deepEqual(withTeam?.tokens[0]?.endUserLimits, [{ window: "1h", tokens: 10 }]);
  assert.deepEqual(withTeam?.mcp, ["docs"]);

  await database.user.delete({ where: { id: user.id } });
  assert.equal((await database.token.findUnique({ where: { id: token.id } }))?.userId, null, "owner removal keeps the token");
  assert.equal(await database.teamMember.count(), 0, "a removed user leaves their teams");
  await database.team.delete({ where: { id: team.id } });
  assert.equal((await database.token.findUnique({ where: { id: token.id } }))?.teamId, null, "a deleted team leaves its tokens");
  await database.token.delete({ where: { id: token.id } });
  assert.equal(await database.endUser.count(), 0, "a token's end users go with it");
}
