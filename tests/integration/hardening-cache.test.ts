import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { startFakeServer, type FakeServer } from "../helpers/fake-upstream-server";
import { startGateway, type Gateway } from "../helpers/start-gateway";

// The response cache against the limits and the clock: a hit is one request for every
// window that counts requests, an answer without a finish reason is never kept, and a
// request's TTL is the oldest answer it takes (issue 29, items 10, 11 and 15).

const KEY = "sk-cache-upstream-0123456789";
let gateway: Gateway;
let upstream: FakeServer;
let served = 0;

before(async () => {
  upstream = await startFakeServer((request, response) => {
    served += 1;
    const model = String(request.body?.model ?? "");
    const finish = model === "no-finish" ? null : model === "cut-short" ? "length" : "stop";
    response.writeHead(200, { "content-type": "application/json" });
    response.end(
      JSON.stringify({
        id: `chatcmpl-${served}`,
        object: "chat.completion",
        created: 1_700_000_000,
        model,
        choices: [{ index: 0, message: { role: "assistant", content: `answer ${served}`, refusal: null }, logprobs: null, finish_reason: finish }],
        usage: { prompt_tokens: 4, completion_tokens: 2, total_tokens: 6 },
      }),
    );
  });
  gateway = await startGateway();
  gateway.secrets.add(KEY);
  const created = await gateway.admin("POST", "/api/admin/channels", {
    name: "cached",
    type: "openai",
    baseUrl: `${upstream.origin}/v1`,
    apiKey: KEY,
    models: ["plain", "no-finish", "cut-short", "windowed"],
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
});

after(async () => {
  await gateway?.stop();
  await upstream?.close();
});

async function client(fields: Record<string, unknown>, ttl: string) {
  const created = await gateway.admin("POST", "/api/admin/tokens", { name: `cache-${Math.random().toString(36).slice(2, 8)}`, cacheTtlSeconds: 3600, ...fields });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  gateway.secrets.add(created.body.key);
  return new OpenAI({ apiKey: created.body.key, baseURL: `${gateway.url}/v1`, maxRetries: 0, defaultHeaders: { "x-gateway-cache-ttl": ttl } });
}

const ask = (openai: OpenAI, model: string, content = "same question", headers: Record<string, string> = {}) =>
  openai.chat.completions.create({ model, messages: [{ role: "user", content }] }, { headers }).withResponse();

describe("the response cache", () => {
  test("a hit counts against a requests window: a full window refuses it as it would a miss", async () => {
    const openai = await client({ limits: [{ window: "day", requests: 3 }] }, "600");
    const first = await ask(openai, "windowed", "counted");
    assert.equal(first.response.headers.get("x-gateway-cache"), "miss");
    for (let index = 0; index < 2; index += 1) {
      const hit = await ask(openai, "windowed", "counted");
      assert.equal(hit.response.headers.get("x-gateway-cache"), "hit");
    }
    const refused = await ask(openai, "windowed", "counted").catch((error: unknown) => error);
    assert.ok(refused instanceof OpenAI.RateLimitError, `the fourth request, a hit, is refused: ${String(refused)}`);
    assert.equal((refused as InstanceType<typeof OpenAI.RateLimitError>).code, "limit_window_exceeded");
  });

  test("an answer whose finish_reason is null is never kept; a 'length' one is replayed as 'length'", async () => {
    const openai = await client({}, "600");
    const before = served;
    await ask(openai, "no-finish", "open-ended");
    const again = await ask(openai, "no-finish", "open-ended");
    assert.equal(again.response.headers.get("x-gateway-cache"), "miss", "not answered from the cache");
    assert.equal(again.data.choices[0]!.finish_reason, null, "relayed as the upstream sent it");
    assert.equal(served - before, 2);

    const first = await ask(openai, "cut-short", "long story");
    const hit = await ask(openai, "cut-short", "long story");
    assert.equal(hit.response.headers.get("x-gateway-cache"), "hit");
    assert.equal(hit.data.choices[0]!.finish_reason, "length");
    assert.equal(hit.data.choices[0]!.message.content, first.data.choices[0]!.message.content);
  });

  test("a request's TTL is the oldest answer it takes", async () => {
    const long = await client({}, "600");
    const stored = await ask(long, "plain", "how old?");
    assert.equal(stored.response.headers.get("x-gateway-cache"), "miss");
    const storedAt = Date.now();
    // Until the entry is older than one second (whatever the machine's speed), then ask with a TTL of 1.
    while (Date.now() - storedAt < 1500) await new Promise((resolve) => setTimeout(resolve, 100));
    const strict = await ask(long, "plain", "how old?", { "x-gateway-cache-ttl": "1" });
    assert.equal(strict.response.headers.get("x-gateway-cache"), "miss", "an answer older than the request's TTL is not served");
    assert.notEqual(strict.data.choices[0]!.message.content, stored.data.choices[0]!.message.content);
  });
});
