import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { eventually } from "../helpers/eventually";
import { startFakeServer, type FakeServer } from "../helpers/fake-upstream-server";
import { startGateway, type Gateway } from "../helpers/start-gateway";

// The response cache against the limits and the clock: a hit is one request for every
// window that counts requests and free for every other limit, in this process and in the
// log another one counts from; an answer without a finish reason, or with one the gateway
// does not know, is never kept; a request's TTL is the oldest answer it takes (issue 29,
// items 10, 11 and 15).

const KEY = "sk-cache-upstream-0123456789";
let gateway: Gateway;
let upstream: FakeServer;
let served = 0;

before(async () => {
  upstream = await startFakeServer((request, response) => {
    served += 1;
    const model = String(request.body?.model ?? "");
    const finish = FINISH_REASONS[model] === undefined ? "stop" : FINISH_REASONS[model];
    // "big-usage" reports far more tokens than any reservation held: the caller ends past its limits.
    const usage = model === "big-usage" ? { prompt_tokens: 5000, completion_tokens: 2, total_tokens: 5002 } : { prompt_tokens: 4, completion_tokens: 2, total_tokens: 6 };
    const id = `chatcmpl-${served}`;
    if (request.body?.stream) {
      response.writeHead(200, { "content-type": "text/event-stream" });
      const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
        `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 1_700_000_000, model, choices, ...extra })}\n\n`;
      response.write(chunk([{ index: 0, delta: { role: "assistant", content: `answer ${served}` }, finish_reason: null }]));
      response.write(chunk([{ index: 0, delta: {}, finish_reason: finish }]));
      if (request.body.stream_options?.include_usage) response.write(chunk([], { usage }));
      response.end("data: [DONE]\n\n");
      return;
    }
    response.writeHead(200, { "content-type": "application/json" });
    response.end(
      JSON.stringify({
        id,
        object: "chat.completion",
        created: 1_700_000_000,
        model,
        choices: [{ index: 0, message: { role: "assistant", content: `answer ${served}`, refusal: null }, logprobs: null, finish_reason: finish }],
        usage,
      }),
    );
  });
  gateway = await startGateway();
  await addChannel(gateway);
});

/** The finish reason each model answers with ("stop" for the others). */
const FINISH_REASONS: Record<string, string | null> = { "no-finish": null, "cut-short": "length", "odd-finish": "insufficient_system_resource" };

async function addChannel(target: Gateway) {
  target.secrets.add(KEY);
  const created = await target.admin("POST", "/api/admin/channels", {
    name: "cached",
    type: "openai",
    baseUrl: `${upstream.origin}/v1`,
    apiKey: KEY,
    models: ["plain", "no-finish", "cut-short", "odd-finish", "windowed", "big-usage"],
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
}

after(async () => {
  await gateway?.stop();
  await upstream?.close();
});

async function createKey(target: Gateway, fields: Record<string, unknown>): Promise<{ id: string; key: string }> {
  const created = await target.admin("POST", "/api/admin/tokens", { name: `cache-${Math.random().toString(36).slice(2, 8)}`, cacheTtlSeconds: 3600, ...fields });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  target.secrets.add(created.body.key);
  return { id: created.body.id, key: created.body.key };
}

const openaiAt = (baseUrl: string, key: string, ttl = "600") =>
  new OpenAI({ apiKey: key, baseURL: `${baseUrl}/v1`, maxRetries: 0, defaultHeaders: { "x-gateway-cache-ttl": ttl } });

async function client(fields: Record<string, unknown>, ttl: string) {
  return openaiAt(gateway.url, (await createKey(gateway, fields)).key, ttl);
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

  test("a hit is free: past its token quota, tpm and a window's tokens, a key or a user is still answered from the cache until a requests window is full", async () => {
    const limits = { quotaTokens: 100, tpm: 100, limits: [{ window: "day", tokens: 100, requests: 3 }] };
    // The key's own limits, then the same limits on its user (a key without limits of its own).
    const user = await gateway.admin("POST", "/api/admin/users", { email: `free-hits-${Date.now()}@example.com`, password: "password-123" });
    assert.equal(user.status, 201, JSON.stringify(user.body));
    const patched = await gateway.admin("PATCH", `/api/admin/users/${user.body.id}`, limits);
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    const subjects = [
      { name: "key", key: await createKey(gateway, limits), usage: (id: string) => `/api/admin/tokens/${id}` },
      { name: "user", key: await createKey(gateway, { userId: user.body.id }), usage: () => `/api/admin/users/${user.body.id}` },
    ];
    for (const subject of subjects) {
      const openai = openaiAt(gateway.url, subject.key.key);
      const question = (content: string) => openai.chat.completions.create({ model: "big-usage", max_tokens: 1, messages: [{ role: "user", content }] }).withResponse();
      const first = await question("free?");
      assert.equal(first.response.headers.get("x-gateway-cache"), "miss");
      // The miss spent 5002 tokens: past the quota, the tpm and the window's tokens once settled.
      await eventually(async () => {
        const window = (await gateway.admin("GET", subject.usage(subject.key.id))).body.windows[0];
        assert.ok(window.used.tokens > 100, `${subject.name}: the miss is settled (${JSON.stringify(window)})`);
      });
      for (let index = 0; index < 2; index += 1) {
        const hit = await question("free?").catch((error: unknown) => error);
        assert.ok(!(hit instanceof Error), `${subject.name}: hit ${index + 1} is served though every token limit is spent: ${String(hit)}`);
        assert.equal((hit as Awaited<ReturnType<typeof question>>).response.headers.get("x-gateway-cache"), "hit");
      }
      // A miss still answers to the quota.
      const miss = await question("something new").catch((error: unknown) => error);
      assert.ok(miss instanceof OpenAI.RateLimitError, `${subject.name}: a miss past the quota is refused: ${String(miss)}`);
      // The window has counted three requests (one miss, two hits): the next hit is refused for its requests.
      const refused = await question("free?").catch((error: unknown) => error);
      assert.ok(refused instanceof OpenAI.RateLimitError, `${subject.name}: the fourth request, a hit, is refused: ${String(refused)}`);
      assert.equal(refused.code, "limit_window_exceeded");
      assert.match(refused.message, /allows 3 requests and 3 requests are used/);
    }
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
    const fields = (answer: OpenAI.ChatCompletion) => ({
      id: answer.id,
      created: answer.created,
      model: answer.model,
      content: answer.choices[0]!.message.content,
      finishReason: answer.choices[0]!.finish_reason,
      // The counts as sent (the rendering adds OpenAI's zero `*_details` where an upstream left them out).
      usage: { prompt: answer.usage?.prompt_tokens, completion: answer.usage?.completion_tokens, total: answer.usage?.total_tokens },
    });
    assert.deepEqual(fields(hit.data), fields(first.data), "replayed as the upstream sent it");
    assert.equal(hit.data.choices[0]!.finish_reason, "length");
  });

  test("an answer whose finish reason the gateway does not know, or a stream without one, is never kept (it would replay as 'stop')", async () => {
    const openai = await client({}, "600");
    const before = served;
    const first = await ask(openai, "odd-finish", "strange ending");
    assert.equal(first.data.choices[0]!.finish_reason as string, "insufficient_system_resource");
    const again = await ask(openai, "odd-finish", "strange ending");
    assert.equal(again.response.headers.get("x-gateway-cache"), "miss", "not answered from the cache");
    assert.equal(again.data.choices[0]!.finish_reason as string, "insufficient_system_resource");
    // Streamed (relayed as the upstream's chunks), the same, and for a stream that never gave
    // a finish reason: never a replayed "stop".
    for (const [model, sent] of [
      ["odd-finish", ["insufficient_system_resource"]],
      ["no-finish", []],
    ] as const) {
      for (let round = 0; round < 2; round += 1) {
        const streamed = await openai.chat.completions.create({ model, messages: [{ role: "user", content: "strange stream" }], stream: true }).withResponse();
        assert.equal(streamed.response.headers.get("x-gateway-cache"), "miss", `${model}, round ${round + 1}`);
        const reasons: unknown[] = [];
        for await (const chunk of streamed.data) if (chunk.choices[0]?.finish_reason) reasons.push(chunk.choices[0].finish_reason);
        assert.deepEqual(reasons, sent, `${model}: the finish reasons as the upstream sent them`);
      }
    }
    assert.equal(served - before, 6, "every one of them reached the upstream");
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

describe("the response cache across processes on one database", () => {
  // Two processes, each counting a key's calendar windows from the request log when it first
  // serves it (on Redis in the many-instance pass): the log must count hits as requests too.
  let pair: Gateway;

  before(async () => {
    pair = await startGateway({}, { processes: 2 });
    await addChannel(pair);
  });

  after(async () => {
    await pair?.stop();
  });

  test("hits served by one process count in the requests window the other process reads", async () => {
    const { id, key } = await createKey(pair, { limits: [{ window: "day", requests: 3 }] });
    const first = openaiAt(pair.instances[0]!, key);
    const answers = [await ask(first, "windowed", "counted twice"), await ask(first, "windowed", "counted twice"), await ask(first, "windowed", "counted twice")];
    assert.deepEqual(
      answers.map((answer) => answer.response.headers.get("x-gateway-cache")),
      ["miss", "hit", "hit"],
    );
    // Until all three rows are written (each process writes its rows in batches).
    const ids = answers.map((answer) => answer.response.headers.get("x-request-id"));
    await eventually(async () => {
      const rows = (await pair.admin("GET", "/api/admin/logs?limit=100")).body.data as { id: string }[];
      assert.ok(
        ids.every((requestId) => rows.some((row) => row.id === requestId)),
        "the three rows are stored",
      );
    });
    const window = (await pair.admin("GET", `/api/admin/tokens/${id}`, undefined, 1)).body.windows[0];
    assert.equal(window.used.requests, 3, `the other process counts the hits: ${JSON.stringify(window)}`);
    const refused = await ask(openaiAt(pair.instances[1]!, key), "windowed", "counted twice").catch((error: unknown) => error);
    assert.ok(refused instanceof OpenAI.RateLimitError, `the fourth request, a hit on the other process, is refused: ${String(refused)}`);
    assert.equal(refused.code, "limit_window_exceeded");
  });
});
