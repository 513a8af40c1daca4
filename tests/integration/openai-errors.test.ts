import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { startFakeOpenAIUpstream, UPSTREAM_API_KEY, type FakeUpstream } from "../helpers/fake-openai-upstream";
import { startGateway, type Gateway } from "../helpers/start-gateway";

let upstream: FakeUpstream;
let gateway: Gateway;
let key: string;
let client: OpenAI;
let unreachableUrl: string;

async function createToken(fields: Record<string, unknown>) {
  const response = await gateway.admin("POST", "/api/admin/tokens", { name: "t", ...fields });
  assert.equal(response.status, 201);
  return response.body as { id: string; key: string };
}

function sdk(apiKey: string) {
  return new OpenAI({ apiKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
}

type APIError = InstanceType<typeof OpenAI.APIError>;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function expectError(promise: Promise<unknown>, errorClass: abstract new (...args: any[]) => APIError, status: number): Promise<APIError> {
  const error = await promise.then(
    () => assert.fail("expected an error"),
    (thrown: unknown) => thrown,
  );
  assert.ok(error instanceof errorClass, `expected ${errorClass.name}, got ${(error as Error).constructor.name}: ${(error as Error).message}`);
  assert.equal((error as APIError).status, status);
  return error as APIError;
}

const hello = [{ role: "user" as const, content: "hello" }];

before(async () => {
  upstream = await startFakeOpenAIUpstream();
  // A port that was open a moment ago and is now closed: connection refused.
  const closed = http.createServer();
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
  unreachableUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/v1`;
  await new Promise((resolve) => closed.close(resolve));

  gateway = await startGateway({ MAX_BODY_BYTES: "65536", UPSTREAM_TIMEOUT_MS: "800" });
  for (const channel of [
    { name: "fake", baseUrl: upstream.baseUrl, apiKey: UPSTREAM_API_KEY, models: ["gpt-test", "fake-error", "fake-slow", "fake-overloaded"] },
    { name: "down", baseUrl: unreachableUrl, apiKey: "sk-unused-000000", models: ["down-model"] },
  ]) {
    assert.equal((await gateway.admin("POST", "/api/admin/channels", { type: "openai", ...channel })).status, 201);
  }
  key = (await createToken({})).key;
  client = sdk(key);
});

after(async () => {
  await gateway?.stop();
  await upstream?.close();
});

describe("errors arrive as the OpenAI SDK's typed errors", () => {
  test("invalid JSON is a 400 in OpenAI's error shape", async () => {
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: '{"model": "gpt-test", "messages": [',
    });
    assert.equal(response.status, 400);
    const body = await response.json();
    assert.deepEqual(Object.keys(body.error).sort(), ["code", "message", "param", "type"]);
    assert.equal(body.error.type, "invalid_request_error");
  });

  test("validation errors are 400 BadRequestError naming the parameter", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ model: "gpt-test", messages: hello, temperature: 2.5 }, "temperature"],
      [{ model: "gpt-test", messages: hello, top_p: 1.5 }, "top_p"],
      [{ model: "gpt-test", messages: hello, n: 0 }, "n"],
      [{ model: "gpt-test", messages: hello, presence_penalty: -3 }, "presence_penalty"],
      [{ model: "gpt-test", messages: hello, frequency_penalty: 2.1 }, "frequency_penalty"],
      [{ model: "gpt-test", messages: hello, reasoning_effort: "extreme" }, "reasoning_effort"],
      [{ messages: hello }, "model"],
      [{ model: "gpt-test" }, "messages"],
      [{ model: "gpt-test", messages: [{ role: "wizard", content: "x" }] }, "messages[0].role"],
      [{ model: "gpt-test", messages: hello, stream_options: { include_usage: true } }, "stream_options"],
    ];
    for (const [body, param] of cases) {
      const error = await expectError(client.chat.completions.create(body as never), OpenAI.BadRequestError, 400);
      assert.equal(error.param, param, JSON.stringify(body));
      assert.equal(error.type, "invalid_request_error");
    }
  });

  test("missing, wrong, expired and disabled keys are 401 AuthenticationError", async () => {
    const response = await fetch(`${gateway.url}/v1/chat/completions`, { method: "POST", body: "{}" });
    assert.equal(response.status, 401);
    await expectError(sdk("sk-not-a-real-key").chat.completions.create({ model: "gpt-test", messages: hello }), OpenAI.AuthenticationError, 401);

    const expired = await createToken({ expiresAt: new Date(Date.now() - 1000).toISOString() });
    const error = await expectError(sdk(expired.key).chat.completions.create({ model: "gpt-test", messages: hello }), OpenAI.AuthenticationError, 401);
    assert.match(error.message, /expired/);

    // Through one process, which must refuse the key at once (the key cached there first);
    // other processes follow through the shared events, checked in the two-process test.
    const direct = (apiKey: string) => new OpenAI({ apiKey, baseURL: `${gateway.instances[0]}/v1`, maxRetries: 0 });
    const disabled = await createToken({});
    await direct(disabled.key).chat.completions.create({ model: "mock-chat", messages: hello });
    assert.equal((await gateway.admin("PATCH", `/api/admin/tokens/${disabled.id}`, { enabled: false }, 0)).status, 200);
    await expectError(direct(disabled.key).chat.completions.create({ model: "mock-chat", messages: hello }), OpenAI.AuthenticationError, 401);

    const deleted = await createToken({});
    await direct(deleted.key).models.list();
    assert.equal((await gateway.admin("DELETE", `/api/admin/tokens/${deleted.id}`, undefined, 0)).status, 200);
    await expectError(direct(deleted.key).models.list(), OpenAI.AuthenticationError, 401);
  });

  test("a model outside the token's allowlist is 403; the list shows only allowed models", async () => {
    const limited = await createToken({ models: ["mock-chat"] });
    const error = await expectError(sdk(limited.key).chat.completions.create({ model: "gpt-test", messages: hello }), OpenAI.PermissionDeniedError, 403);
    assert.equal(error.code, "model_not_allowed");
    const ids = [];
    for await (const model of sdk(limited.key).models.list()) ids.push(model.id);
    assert.deepEqual(ids, ["mock-chat"]);
  });

  test("an unknown model is 404 NotFoundError", async () => {
    const error = await expectError(client.chat.completions.create({ model: "no-such-model", messages: hello }), OpenAI.NotFoundError, 404);
    assert.equal(error.code, "model_not_found");
  });

  test("a mistyped model's 404 names the nearest allowed name and what the key may use", async () => {
    const typo = await expectError(client.chat.completions.create({ model: "gpt-tset", messages: hello }), OpenAI.NotFoundError, 404);
    assert.match(typo.message, /Did you mean 'gpt-test'\?/);
    assert.match(typo.message, /This key may use: .*down-model.*gpt-test.*mock-chat/);
    // A key limited to some models hears only of those, even about a name near another one.
    const limited = sdk((await createToken({ models: ["mock-chat", "fake-error"] })).key);
    const near = await expectError(limited.chat.completions.create({ model: "fake-erorr", messages: hello }), OpenAI.NotFoundError, 404);
    assert.match(near.message, /Did you mean 'fake-error'\? This key may use: fake-error, mock-chat\.$/);
    assert.equal(near.message.includes("gpt-test"), false);
    const retrieved = await expectError(client.models.retrieve("gpt-tset"), OpenAI.NotFoundError, 404);
    assert.match(retrieved.message, /Did you mean 'gpt-test'\?/);
  });

  test("a body over the limit is 413", async () => {
    const big = "x".repeat(70_000);
    const error = await expectError(client.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: big }] }), OpenAI.APIError, 413);
    assert.match(error.message, /exceeds the limit of 65536 bytes \(the gateway's MAX_BODY_BYTES setting\)/);
  });

  test("a chunked body with no length is counted as it streams in, and is 413 past the limit", async () => {
    const chunk = new TextEncoder().encode(`{"model":"gpt-test","messages":[{"role":"user","content":"${"y".repeat(10_000)}`);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let index = 0; index < 10; index += 1) controller.enqueue(chunk);
        controller.close();
      },
    });
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body,
      duplex: "half",
    } as RequestInit);
    assert.equal(response.status, 413);
    assert.equal((await response.json()).error.code, "request_too_large");
  });

  test("requests over the token's rpm are 429 RateLimitError with retry-after", async () => {
    const limited = sdk((await createToken({ rpm: 2 })).key);
    await limited.chat.completions.create({ model: "mock-chat", messages: hello });
    await limited.chat.completions.create({ model: "mock-chat", messages: hello });
    const error = await expectError(limited.chat.completions.create({ model: "mock-chat", messages: hello }), OpenAI.RateLimitError, 429);
    assert.equal(error.code, "rate_limit_exceeded");
    assert.ok(Number(error.headers?.get("retry-after")) >= 1);
  });

  test("a token past its quota is 429 insufficient_quota, having spent no more than the quota", async () => {
    const quota = sdk((await createToken({ quotaTokens: 60 })).key);
    let answered = 0;
    let refusal: APIError | undefined;
    for (let index = 0; index < 10 && !refusal; index += 1) {
      await quota.chat.completions.create({ model: "mock-chat", messages: hello, max_tokens: 20 }).then(
        () => (answered += 1),
        (error: APIError) => (refusal = error),
      );
    }
    assert.ok(answered >= 1, "requests that fit the quota are served");
    assert.ok(refusal instanceof OpenAI.RateLimitError, String(refusal));
    assert.equal(refusal.code, "insufficient_quota");
    await gateway.admin("GET", "/api/admin/logs?limit=1"); // writes the queued rows
    const { body } = await gateway.admin("GET", "/api/admin/tokens");
    const spent = (body.data as { quotaTokens: number; usedTokens: number }[]).find((token) => token.quotaTokens === 60)!.usedTokens;
    assert.ok(spent > 0 && spent <= 60, `spent ${spent} of 60`);
  });

  test("upstream errors pass through with their status and message, never the upstream key", async () => {
    const error = await expectError(client.chat.completions.create({ model: "fake-error", messages: hello }), OpenAI.BadRequestError, 400);
    assert.equal(error.code, "context_length_exceeded");
    assert.match(error.message, /maximum context length/);
    assert.equal(error.message.includes(UPSTREAM_API_KEY), false);
    await expectError(client.chat.completions.create({ model: "fake-overloaded", messages: hello }), OpenAI.InternalServerError, 503);
  });

  test("an unreachable upstream is 502 and a silent one is 504", async () => {
    const unreachable = await expectError(client.chat.completions.create({ model: "down-model", messages: hello }), OpenAI.APIError, 502);
    // The caller learns what failed and the id to quote; the upstream's address is the admin's to see.
    const address = unreachableUrl.split("/v1")[0]!.replace("http://", "");
    const requestId = unreachable.headers?.get("x-request-id");
    // (The SDK puts the status before the message.)
    assert.match(unreachable.message, /The upstream for this model could not be reached \(request id (\S+)\)\.$/);
    assert.ok(requestId && unreachable.message.includes(requestId), unreachable.message);
    assert.equal(unreachable.message.includes(address), false, "no upstream address in an API answer");
    const row = (await gateway.admin("GET", "/api/admin/logs?limit=50")).body.data.find((entry: { id: string }) => entry.id === requestId);
    assert.match(JSON.stringify(row.attempts), new RegExp(`${address.replace(/[.]/g, "\\.")} refused the connection`));
    await expectError(client.chat.completions.create({ model: "fake-slow", messages: hello }), OpenAI.APIError, 504);
    await expectError(client.chat.completions.create({ model: "fake-slow", messages: hello, stream: true }), OpenAI.APIError, 504);
  });

  test("unknown API paths are 404 in the same shape", async () => {
    const response = await fetch(`${gateway.url}/v1/nothing-here`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(response.status, 404);
    assert.equal((await response.json()).error.type, "invalid_request_error");
  });

  test("neither the platform key nor the upstream key appears in logs or the database file", async () => {
    await gateway.admin("GET", "/api/admin/logs?limit=1");
    const stored = await gateway.storedText();
    assert.ok(stored.length > 0);
    for (const secret of [key, UPSTREAM_API_KEY]) {
      assert.equal(stored.includes(secret), false);
      assert.equal(gateway.output().includes(secret), false);
    }
  });
});
