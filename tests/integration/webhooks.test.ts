import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { startFaultUpstream, type FaultUpstream } from "../helpers/fault-upstream";
import { eventually } from "../helpers/eventually";
import { startGateway, type Gateway } from "../helpers/start-gateway";
import { startWebhookReceiver } from "../helpers/webhook-receiver";

// Webhooks as a receiver sees them: signed JSON posts, the same event id on every retry,
// each event once even with two gateway processes (the many-instance pass), raised by what
// happens to channels: a 401 disabling one, a probe restoring it, failures opening its
// circuit, one key of a pool refused.

const KEY = "sk-upstream-hooks-0123456789";

const sign = (raw: string, secret: string) => `sha256=${createHmac("sha256", secret).update(raw).digest("hex")}`;

let gateway: Gateway;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
let revoked: FaultUpstream;
let failing: FaultUpstream;
let pooled: FaultUpstream;
let client: OpenAI;
let hook: { id: string; secret: string };

before(async () => {
  receiver = await startWebhookReceiver();
  revoked = await startFaultUpstream(KEY);
  failing = await startFaultUpstream(KEY);
  pooled = await startFaultUpstream(KEY);
  gateway = await startGateway({
    FETCH_ALLOWED_HOSTS: "127.0.0.1",
    WEBHOOK_RETRY_BASE: "1s",
    CHANNEL_PROBE_INTERVAL_MS: "300",
    CIRCUIT_CONSECUTIVE_FAILURES: "3",
    ROUTING_BACKOFF_MS: "0",
  });
  client = new OpenAI({ apiKey: (await gateway.admin("POST", "/api/admin/tokens", { name: "hooks" })).body.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  const created = await gateway.admin("POST", "/api/admin/webhooks", {
    url: receiver.url,
    events: ["channel.disabled", "channel.restored", "channel.circuit_open", "key.disabled"],
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  hook = created.body;
  gateway.secrets.add(hook.secret);
});
after(async () => {
  await gateway?.stop();
  await receiver?.close();
  await revoked?.close();
  await failing?.close();
  await pooled?.close();
});

describe("webhooks", () => {
  test("the secret is shown once; URLs on private addresses not allowed by FETCH_ALLOWED_HOSTS are refused", async () => {
    assert.match(hook.secret, /^whsec_\w{32}$/);
    const shown = await gateway.admin("GET", `/api/admin/webhooks/${hook.id}`);
    assert.equal(shown.status, 200);
    assert.equal(shown.body.hasSecret, true);
    assert.equal(shown.body.secret, undefined);
    assert.ok(!JSON.stringify((await gateway.admin("GET", "/api/admin/webhooks")).body).includes(hook.secret));
    for (const url of ["http://10.0.0.7/hook", "http://169.254.169.254/latest", "http://localhost:9/hook", "ftp://example.com/x"]) {
      const refused = await gateway.admin("POST", "/api/admin/webhooks", { url, events: ["channel.disabled"] });
      assert.equal(refused.status, 400, url);
      assert.equal(refused.body.error.param, "url");
    }
    const unknown = await gateway.admin("POST", "/api/admin/webhooks", { url: receiver.url, events: ["channel.exploded"] });
    assert.equal(unknown.status, 400);
    assert.equal((await gateway.admin("GET", "/api/admin/webhooks/nope")).status, 404);
  });

  test("a test event is signed, and a receiver answering 500 twice gets the same event a third time", async () => {
    receiver.state.failures = 2;
    const first = await gateway.admin("POST", `/api/admin/webhooks/${hook.id}/test`);
    assert.deepEqual(first.body, { delivered: false, status: 500, error: "HTTP 500" });
    const delivered = await receiver.next((entry) => entry.body.event === "webhook.test");
    const attempts = receiver.received.filter((entry) => entry.body.id === delivered.body.id);
    assert.equal(attempts.length, 3, "the first attempt and two retries");
    for (const attempt of attempts) {
      assert.equal(attempt.raw, delivered.raw, "the same bytes on every retry");
      assert.equal(attempt.headers["x-gateway-event-id"], delivered.body.id);
      assert.equal(attempt.headers["x-gateway-signature"], sign(attempt.raw, hook.secret));
      assert.equal(attempt.headers["content-type"], "application/json");
    }
    assert.match(delivered.body.text, /reachable/);
    assert.ok(!Number.isNaN(Date.parse(delivered.body.at)));
    // The row is marked once the receiver's answer is back.
    await eventually(async () => {
      const recent = (await gateway.admin("GET", `/api/admin/webhooks/${hook.id}`)).body.recent as { eventId: string; status: string; attempts: number }[];
      const row = recent.find((entry) => entry.eventId === delivered.body.id)!;
      assert.equal(row.status, "delivered");
      assert.equal(row.attempts, 3);
    }, 10_000);
  });

  test("a channel disabled by a 401 fires channel.disabled once, and channel.restored when a probe gets through", async () => {
    revoked.refusing = true;
    const channel = await gateway.admin("POST", "/api/admin/channels", { type: "openai", name: "revoked", baseUrl: revoked.baseUrl, apiKey: KEY, models: ["ok.hooks"] });
    gateway.secrets.add(KEY);
    // Several callers at once, spread over the processes: still one event.
    await Promise.allSettled(Array.from({ length: 6 }, () => client.chat.completions.create({ model: "ok.hooks", messages: [{ role: "user", content: "hi" }] })));
    const disabled = await receiver.next((entry) => entry.body.event === "channel.disabled" && entry.body.subject.id === channel.body.id);
    assert.deepEqual(disabled.body.subject, { kind: "channel", id: channel.body.id, name: "revoked" });
    assert.match(disabled.body.channel!.reason, /401/);
    assert.match(disabled.body.text, /^Channel "revoked" was disabled automatically: /);
    assert.equal(disabled.headers["x-gateway-signature"], sign(disabled.raw, hook.secret));

    revoked.refusing = false;
    const restored = await receiver.next((entry) => entry.body.event === "channel.restored" && entry.body.subject.id === channel.body.id);
    assert.match(restored.body.text, /back in rotation/);
    // Every event recorded was delivered, and each reached the receiver once.
    const recent = (await gateway.admin("GET", `/api/admin/webhooks/${hook.id}`)).body.recent as { event: string; subject: { id: string } }[];
    const disables = recent.filter((entry) => entry.event === "channel.disabled" && entry.subject.id === channel.body.id);
    assert.equal(disables.length, 1, "one event for one disable, whichever process saw the 401s");
    assert.equal(receiver.received.filter((entry) => entry.body.event === "channel.disabled").length, 1);
    assert.equal(recent.filter((entry) => entry.event === "channel.restored" && entry.subject.id === channel.body.id).length, 1);
  });

  test("failures opening a channel's circuit fire channel.circuit_open once", async () => {
    const channel = await gateway.admin("POST", "/api/admin/channels", { type: "openai", name: "failing", baseUrl: failing.baseUrl, apiKey: KEY, models: ["http-500.hooks"] });
    const opened = receiver.next((entry) => entry.body.event === "channel.circuit_open" && entry.body.subject.id === channel.body.id);
    // Until each process has seen enough failures in a row (the many-instance pass has two).
    let settled = false;
    void opened.then(() => (settled = true));
    while (!settled) await client.chat.completions.create({ model: "http-500.hooks", messages: [{ role: "user", content: "hi" }] }).catch(() => undefined);
    const event = await opened;
    assert.deepEqual(event.body.subject, { kind: "channel", id: channel.body.id, name: "failing" });
    assert.match(event.body.text, /circuit opened/);
    const recent = (await gateway.admin("GET", `/api/admin/webhooks/${hook.id}`)).body.recent as { event: string; subject: { id: string } }[];
    assert.equal(recent.filter((entry) => entry.event === "channel.circuit_open" && entry.subject.id === channel.body.id).length, 1);
  });

  test("one key of a pool refused fires key.disabled with its fingerprint, never the key", async () => {
    const wrong = "sk-wrong-pool-key-0123456789";
    gateway.secrets.add(wrong);
    const channel = await gateway.admin("POST", "/api/admin/channels", { type: "openai", name: "pooled", baseUrl: pooled.baseUrl, apiKeys: [KEY, wrong], models: ["ok.pool"] });
    assert.equal(channel.status, 201, JSON.stringify(channel.body));
    const disabled = receiver.next((entry) => entry.body.event === "key.disabled" && entry.body.subject.id === channel.body.id);
    let settled = false;
    void disabled.then(() => (settled = true));
    // Keys are picked at random: ask until the pool has tried the refused one.
    while (!settled) await client.chat.completions.create({ model: "ok.pool", messages: [{ role: "user", content: "hi" }] }).catch(() => undefined);
    const event = await disabled;
    assert.match(event.body.text, /^A key of channel "pooled" was disabled automatically: key \S+/);
    assert.ok(!event.raw.includes(wrong), "the key itself is never sent");
  });

  test("a disabled webhook is sent nothing; a deleted one is gone with its deliveries", async () => {
    const other = await gateway.admin("POST", "/api/admin/webhooks", { url: receiver.url, events: ["channel.disabled"], secret: "an-operator-chosen-secret", enabled: false });
    assert.equal(other.body.secret, "an-operator-chosen-secret");
    gateway.secrets.add("an-operator-chosen-secret");
    const patched = await gateway.admin("PATCH", `/api/admin/webhooks/${other.body.id}`, { events: ["channel.restored", "key.disabled"] });
    assert.deepEqual(patched.body.events, ["channel.restored", "key.disabled"]);
    assert.equal(patched.body.enabled, false);
    assert.equal((await gateway.admin("DELETE", `/api/admin/webhooks/${other.body.id}`)).status, 200);
    assert.equal((await gateway.admin("GET", `/api/admin/webhooks/${other.body.id}`)).status, 404);
  });
});
