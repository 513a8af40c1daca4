import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { eventually } from "../helpers/eventually";
import { startGateway, type Gateway } from "../helpers/start-gateway";
import { startWebhookReceiver } from "../helpers/webhook-receiver";

// Budget alerts (issue 34): a limit window crossing each of its alertAt fractions raises
// budget.threshold once per period, and refusing a request raises budget.exhausted once,
// however many requests cross or are refused at the same time, in one process or two.

let gateway: Gateway;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

before(async () => {
  receiver = await startWebhookReceiver();
  gateway = await startGateway({ FETCH_ALLOWED_HOSTS: "127.0.0.1" });
  const hook = await gateway.admin("POST", "/api/admin/webhooks", { url: receiver.url, events: ["budget.threshold", "budget.exhausted"] });
  assert.equal(hook.status, 201, JSON.stringify(hook.body));
  gateway.secrets.add(hook.body.secret);
});
after(async () => {
  await gateway?.stop();
  await receiver?.close();
});

const ask = (client: OpenAI) => client.chat.completions.create({ model: "mock-chat", messages: [{ role: "user", content: "hi" }], max_tokens: 5 });

async function recorded(subjectId: string) {
  const hooks = (await gateway.admin("GET", "/api/admin/webhooks")).body.data as { id: string }[];
  const detail = await gateway.admin("GET", `/api/admin/webhooks/${hooks[0]!.id}`);
  return (detail.body.recent as { event: string; subject: { id: string }; status: string }[]).filter((entry) => entry.subject.id === subjectId);
}

describe("budget alerts", () => {
  test("concurrent requests crossing 50% and 80% of a window raise each threshold once; the first refusal raises budget.exhausted once", async () => {
    const token = await gateway.admin("POST", "/api/admin/tokens", { name: "alerted", limits: [{ window: "day", requests: 10, alertAt: [0.5, 0.8] }] });
    assert.equal(token.status, 201, JSON.stringify(token.body));
    gateway.secrets.add(token.body.key);
    const client = new OpenAI({ apiKey: token.body.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });

    const first = await Promise.allSettled(Array.from({ length: 10 }, () => ask(client)));
    assert.equal(first.filter((result) => result.status === "fulfilled").length, 10, "the window holds exactly ten");
    const half = await receiver.next((entry) => entry.body.event === "budget.threshold" && entry.body.subject.id === token.body.id && entry.body.percent === 0.5);
    const most = await receiver.next((entry) => entry.body.event === "budget.threshold" && entry.body.subject.id === token.body.id && entry.body.percent === 0.8);
    assert.deepEqual(half.body.subject, { kind: "token", id: token.body.id, name: "alerted" });
    assert.equal(half.body.window!.window, "day");
    assert.equal(half.body.window!.unit, "requests");
    assert.equal(half.body.window!.limit, 10);
    assert.ok(half.body.window!.used >= 5);
    assert.ok(half.body.window!.resetsAt && Date.parse(half.body.window!.resetsAt) > Date.now());
    assert.match(most.body.text, /^The day window of token "alerted" passed 80%/);

    const refused = await Promise.allSettled(Array.from({ length: 4 }, () => ask(client)));
    assert.ok(refused.every((result) => result.status === "rejected" && (result.reason as { status?: number }).status === 429));
    const spent = await receiver.next((entry) => entry.body.event === "budget.exhausted" && entry.body.subject.id === token.body.id);
    assert.match(spent.body.text, /is spent/);
    assert.equal(spent.body.percent, undefined);

    // Every event recorded is delivered, and none twice: one row per threshold and one for the refusal.
    await eventually(async () => {
      const rows = await recorded(token.body.id);
      assert.ok(rows.every((row) => row.status === "delivered"));
      assert.deepEqual(rows.map((row) => row.event).sort(), ["budget.exhausted", "budget.threshold", "budget.threshold"]);
    }, 10_000);
    const received = receiver.received.filter((entry) => entry.body.subject.id === token.body.id);
    assert.equal(received.length, 3);
  });

  test("a window without alertAt alerts at 80%; alertAt [] never alerts", async () => {
    const quiet = await gateway.admin("POST", "/api/admin/tokens", { name: "quiet", limits: [{ window: "1h", requests: 100, alertAt: [] }] });
    const loud = await gateway.admin("POST", "/api/admin/tokens", { name: "default", limits: [{ window: "1h", requests: 5 }] });
    gateway.secrets.add(quiet.body.key);
    gateway.secrets.add(loud.body.key);
    const quietClient = new OpenAI({ apiKey: quiet.body.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const loudClient = new OpenAI({ apiKey: loud.body.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    for (let index = 0; index < 90; index += 1) await ask(quietClient);
    for (let index = 0; index < 4; index += 1) await ask(loudClient);
    const alert = await receiver.next((entry) => entry.body.subject.id === loud.body.id);
    assert.equal(alert.body.percent, 0.8);
    assert.equal(alert.body.subject.name, "default");
    // The loud token's alert came after every quiet request had settled: had the quiet one alerted, it would be here.
    assert.deepEqual(await recorded(quiet.body.id), []);
  });
});
