import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { startFaultUpstream, type FaultUpstream } from "../helpers/fault-upstream";
import { startGateway, type Gateway } from "../helpers/start-gateway";

// An upstream that refuses the gateway's own key is the channel's problem, never the
// caller's 401: fail over, take the channel out of rotation with the reason, and put it
// back once a probe gets an answer again.

const KEY = "sk-upstream-auth-0123456789";
let gateway: Gateway;
let revoked: FaultUpstream;
let healthy: FaultUpstream;
let client: OpenAI;

before(async () => {
  revoked = await startFaultUpstream(KEY);
  healthy = await startFaultUpstream(KEY, { healthy: true, reply: "served by the healthy channel" });
  gateway = await startGateway({ CHANNEL_PROBE_INTERVAL_MS: "300", ROUTING_BACKOFF_MS: "0" });
  client = new OpenAI({ apiKey: (await gateway.admin("POST", "/api/admin/tokens", { name: "auth" })).body.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
});
after(async () => {
  await gateway?.stop();
  await revoked?.close();
  await healthy?.close();
});

async function channel(id: string) {
  return (await gateway.admin("GET", `/api/admin/channels/${id}`)).body as { autoDisabledReason: string | null; enabled: boolean };
}

async function eventually(check: () => Promise<boolean>, withinMs: number): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > withinMs) assert.fail(`not within ${withinMs} ms`);
    await sleep(50);
  }
}

describe("an upstream that refuses the gateway's credentials", () => {
  test("fails over, and the refusing channel is disabled automatically with the reason", async () => {
    revoked.refusing = true;
    const bad = await gateway.admin("POST", "/api/admin/channels", { type: "openai", name: "revoked", baseUrl: revoked.baseUrl, apiKey: KEY, models: ["ok.auth"], priority: 5 });
    await gateway.admin("POST", "/api/admin/channels", { type: "openai", name: "healthy", baseUrl: healthy.baseUrl, apiKey: KEY, models: ["ok.auth"] });
    const completion = await client.chat.completions.create({ model: "ok.auth", messages: [{ role: "user", content: "hi" }] });
    assert.equal(completion.choices[0]!.message.content, "served by the healthy channel");
    await eventually(async () => (await channel(bad.body.id)).autoDisabledReason !== null, 3000);
    const state = await channel(bad.body.id);
    assert.match(state.autoDisabledReason!, /HTTP 401/);
    assert.equal(state.enabled, true, "an administrator's switch is untouched");
    // (The fake also counts the prober's retries, so the log says which channels were tried.)
    // Each process is told through the shared state; once it has heard, it no longer tries it.
    const attemptsOf = async (instance: string) => {
      const response = await fetch(`${instance}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${client.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "ok.auth", messages: [{ role: "user", content: "again" }] }),
      });
      assert.equal(response.status, 200);
      const requestId = response.headers.get("x-request-id");
      const { body } = await gateway.admin("GET", "/api/admin/logs?limit=1000");
      const row = (body.data as { id: string; attempts: { channelName: string }[] }[]).find((entry) => entry.id === requestId)!;
      return row.attempts.map((attempt) => attempt.channelName);
    };
    for (const instance of gateway.instances) {
      await eventually(async () => (await attemptsOf(instance)).join() === "healthy", 3000);
      assert.deepEqual(await attemptsOf(instance), ["healthy"], "no longer tried");
    }
  });

  test("with no channel left the caller gets a 502 that names the upstream's refusal, not a 401", async () => {
    revoked.refusing = true;
    await gateway.admin("POST", "/api/admin/channels", { type: "openai", name: "revoked-alone", baseUrl: revoked.baseUrl, apiKey: KEY, models: ["ok.alone"] });
    const error = await client.chat.completions.create({ model: "ok.alone", messages: [{ role: "user", content: "hi" }] }).then(
      () => assert.fail("expected an error"),
      (thrown: unknown) => thrown as InstanceType<typeof OpenAI.APIError>,
    );
    assert.equal(error.status, 502);
    assert.equal(error.code, "upstream_auth_failed");
    // Out of rotation now: the model cannot be served for a while, and it still exists.
    await eventually(async () => {
      const again = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${client.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "ok.alone", messages: [{ role: "user", content: "again" }] }),
      });
      const body = (await again.json()) as { error: { code: string } };
      return again.status === 503 && body.error.code === "model_unavailable" && Number(again.headers.get("retry-after")) >= 1;
    }, 3000);
  });

  test("a probe puts the channel back once the upstream answers again", async () => {
    const { body } = await gateway.admin("GET", "/api/admin/channels");
    const id = (body.data as { id: string; name: string }[]).find((entry) => entry.name === "revoked")!.id;
    revoked.refusing = false;
    await eventually(async () => (await channel(id)).autoDisabledReason === null, 5000);
    // Back in rotation: a client request is served by it (priority 5) again.
    await eventually(async () => {
      const response = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${client.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "ok.auth", messages: [{ role: "user", content: "back?" }] }),
      });
      const requestId = response.headers.get("x-request-id");
      const { body: logs } = await gateway.admin("GET", "/api/admin/logs?limit=1000");
      const row = (logs.data as { id: string; attempts: { channelName: string }[] }[]).find((entry) => entry.id === requestId);
      return response.status === 200 && row?.attempts[0]?.channelName === "revoked";
    }, 3000);
  });
});
