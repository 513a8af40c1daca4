import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, test } from "node:test";
import { startFaultUpstream, type FaultUpstream } from "../helpers/fault-upstream";
import { sharedServices, startGateway, type Gateway } from "../helpers/start-gateway";

// Two gateway processes on one PostgreSQL database and one Redis: what one process
// learns or is told, the other acts on.

const UPSTREAM_KEY = "sk-upstream-shared-0123456789";
let gateway: Gateway;
let upstream: FaultUpstream;

before(async () => {
  if (!sharedServices()) throw new Error("This suite needs TEST_POSTGRES_URL and TEST_REDIS_URL: run it through `npm test`.");
  upstream = await startFaultUpstream(UPSTREAM_KEY);
  gateway = await startGateway({ CIRCUIT_CONSECUTIVE_FAILURES: "2", CIRCUIT_OPEN_MS: "60000", ROUTING_BACKOFF_MS: "0" }, { processes: 2 });
  assert.equal(gateway.instances.length, 2);
});
after(async () => {
  await gateway?.stop();
  await upstream?.close();
});

function chat(instance: number, key: string, model = "mock-chat") {
  return fetch(`${gateway.instances[instance]}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }], max_tokens: 3 }),
  });
}

async function eventually(check: () => Promise<boolean>, withinMs: number): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > withinMs) assert.fail(`not within ${withinMs} ms`);
    await sleep(25);
  }
  return Date.now() - started;
}

describe("two processes, one PostgreSQL, one Redis", () => {
  test("a token created through one process works through the other, and once disabled is refused within 2 s", async () => {
    const created = await gateway.admin("POST", "/api/admin/tokens", { name: "shared" }, 0);
    assert.equal((await chat(1, created.body.key)).status, 200);
    assert.equal((await gateway.admin("PATCH", `/api/admin/tokens/${created.body.id}`, { enabled: false }, 0)).status, 200);
    await eventually(async () => (await chat(1, created.body.key)).status === 401, 2000);
  });

  test("a channel created through one process serves through the other, and once disabled is left alone by it within 2 s", async () => {
    const created = await gateway.admin(
      "POST",
      "/api/admin/channels",
      { type: "openai", name: "shared", baseUrl: upstream.baseUrl, apiKey: UPSTREAM_KEY, models: ["ok.shared"] },
      0,
    );
    assert.equal(created.status, 201);
    const key = (await gateway.admin("POST", "/api/admin/tokens", { name: "channel" }, 1)).body.key as string;
    await eventually(async () => (await chat(1, key, "ok.shared")).status === 200, 3000);
    assert.equal((await gateway.admin("PATCH", `/api/admin/channels/${created.body.id}`, { enabled: false }, 0)).status, 200);
    // Process 1 reloads its channels when Redis brings the news: a request it routes before
    // then may still reach the channel, none after.
    await eventually(async () => (await chat(1, key, "ok.shared")).status === 404, 2000);
    const calls = upstream.calls.get("ok.shared");
    for (let i = 0; i < 3; i++) assert.equal((await chat(1, key, "ok.shared")).status, 404);
    assert.equal(upstream.calls.get("ok.shared"), calls, "no call reached the disabled channel");
  });

  test("a circuit opened by failures in one process is skipped by the other", async () => {
    const created = await gateway.admin(
      "POST",
      "/api/admin/channels",
      { type: "openai", name: "failing", baseUrl: upstream.baseUrl, apiKey: UPSTREAM_KEY, models: ["http-500.circuit"] },
      0,
    );
    const key = (await gateway.admin("POST", "/api/admin/tokens", { name: "circuit" }, 0)).body.key as string;
    await eventually(async () => (await chat(0, key, "http-500.circuit")).status === 500, 3000);
    assert.equal((await chat(0, key, "http-500.circuit")).status, 500);
    // The news travels through Redis: wait until process 1, which never saw a failure,
    // reports the circuit open (a request sent before then may still go upstream).
    await eventually(async () => {
      const { body } = await gateway.admin("GET", `/api/admin/channels/${created.body.id}`, undefined, 1);
      return body.state.circuit === "open";
    }, 2000);
    const calls = upstream.calls.get("http-500.circuit");
    const response = await chat(1, key, "http-500.circuit");
    assert.equal(response.status, 503);
    assert.notEqual(response.headers.get("retry-after"), null);
    assert.equal(upstream.calls.get("http-500.circuit"), calls, "process 1 no longer calls the channel");
  });
});
