import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import { ApiError, GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { ANTHROPIC_KEY, startFakeAnthropicUpstream } from "../helpers/fake-anthropic-upstream";
import { GEMINI_KEY, startFakeGeminiUpstream } from "../helpers/fake-gemini-upstream";
import { startFakeOpenAIUpstream, UPSTREAM_API_KEY } from "../helpers/fake-openai-upstream";
import { startGateway, type Gateway } from "../helpers/start-gateway";

// Failures reach each client in its own error format, before and after streaming starts.

let gateway: Gateway;
let key: string;
let fakes: Awaited<ReturnType<typeof startFakeServers>>;

async function startFakeServers() {
  return { openai: await startFakeOpenAIUpstream(), anthropic: await startFakeAnthropicUpstream(), gemini: await startFakeGeminiUpstream() };
}

const anthropic = (apiKey = key) => new Anthropic({ baseURL: gateway.url, apiKey, maxRetries: 0 });
const openai = (apiKey = key) => new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey, maxRetries: 0 });
const gemini = (apiKey = key) => new GoogleGenAI({ apiKey, httpOptions: { baseUrl: gateway.url } });
const user = [{ role: "user" as const, content: "hello" }];

async function rejection(promise: Promise<unknown>): Promise<any> {
  return promise.then(
    () => assert.fail("expected an error"),
    (error: unknown) => error,
  );
}

/** The `error.type` of an Anthropic error body. */
const errorType = (error: any): string | undefined => error?.error?.error?.type;

async function logRow(requestId: string | null) {
  const rows = (await gateway.admin("GET", "/api/admin/logs?limit=50")).body.data as any[];
  return rows.find((row) => row.id === requestId);
}

before(async () => {
  fakes = await startFakeServers();
  gateway = await startGateway();
  for (const channel of [
    { type: "openai", baseUrl: fakes.openai.baseUrl, apiKey: UPSTREAM_API_KEY, models: ["gpt-test", "fake-midstream-error"] },
    { type: "anthropic", baseUrl: fakes.anthropic.baseUrl, apiKey: ANTHROPIC_KEY, models: ["claude-test", "claude-overloaded", "claude-midstream-error"] },
    { type: "gemini", baseUrl: fakes.gemini.baseUrl, apiKey: GEMINI_KEY, models: ["gemini-test", "gemini-overloaded", "gemini-midstream-error"] },
  ]) {
    assert.equal((await gateway.admin("POST", "/api/admin/channels", { name: channel.type, ...channel })).status, 201);
  }
  key = (await gateway.admin("POST", "/api/admin/tokens", { name: "errors" })).body.key;
});

after(async () => {
  await gateway?.stop();
  await Promise.all(Object.values(fakes ?? {}).map((fake) => fake.close()));
});

describe("Anthropic clients get Anthropic errors", () => {
  test("wrong key is 401 authentication_error", async () => {
    const error = await rejection(anthropic("sk-wrong").messages.create({ model: "claude-test", max_tokens: 5, messages: user }));
    assert.ok(error instanceof Anthropic.AuthenticationError);
    assert.equal((error as any).error.type, "error");
    assert.equal(errorType(error), "authentication_error");
  });

  test("x-api-key works, and the version header is required in date form (anthropic-version or vendor-version)", async () => {
    const post = (headers: Record<string, string>) =>
      fetch(`${gateway.url}/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": key, ...headers },
        body: JSON.stringify({ model: "claude-test", max_tokens: 5, messages: user }),
      });
    const missing = await post({});
    assert.equal(missing.status, 400);
    assert.deepEqual((await missing.json()).error.type, "invalid_request_error");
    assert.equal((await post({ "anthropic-version": "latest" })).status, 400);
    assert.equal((await post({ "anthropic-version": "2023-06-01" })).status, 200);
    assert.equal((await post({ "vendor-version": "2023-06-01" })).status, 200);
  });

  test("validation, unknown model, quota and rate limit use Anthropic's types and statuses", async () => {
    const invalid = await rejection(anthropic().messages.create({ model: "claude-test", max_tokens: -1, messages: user }));
    assert.ok(invalid instanceof Anthropic.BadRequestError);
    assert.equal(errorType(invalid), "invalid_request_error");
    const missing = await rejection(anthropic().messages.create({ model: "no-such", max_tokens: 5, messages: user }));
    assert.ok(missing instanceof Anthropic.NotFoundError);
    assert.equal(errorType(missing), "not_found_error");
    const quotaKey = (await gateway.admin("POST", "/api/admin/tokens", { name: "q", quotaTokens: 0 })).body.key;
    const quota = await rejection(anthropic(quotaKey).messages.create({ model: "claude-test", max_tokens: 5, messages: user }));
    assert.ok(quota instanceof Anthropic.RateLimitError);
    assert.equal(quota.headers?.get("x-should-retry"), "false");
    assert.match(quota.message, /quota/);
    const limitedKey = (await gateway.admin("POST", "/api/admin/tokens", { name: "r", rpm: 1 })).body.key;
    await anthropic(limitedKey).messages.create({ model: "claude-test", max_tokens: 5, messages: user });
    const limited = await rejection(anthropic(limitedKey).messages.create({ model: "claude-test", max_tokens: 5, messages: user }));
    assert.ok(limited instanceof Anthropic.RateLimitError);
    assert.equal(errorType(limited), "rate_limit_error");
  });

  test("an upstream's 529 overloaded_error passes through to Anthropic clients, and is 503 for OpenAI clients", async () => {
    const error = await rejection(anthropic().messages.create({ model: "claude-overloaded", max_tokens: 5, messages: user }));
    assert.equal(error.status, 529);
    assert.equal(errorType(error), "overloaded_error");
    const fromOpenAI = await rejection(openai().chat.completions.create({ model: "claude-overloaded", messages: user }));
    assert.ok(fromOpenAI instanceof OpenAI.InternalServerError);
    assert.equal(fromOpenAI.status, 503);
  });
});

describe("a model whose channels are all skipped", () => {
  /** Calls until the gateway itself refuses (its own message), as the channel state may take a moment to reach every process. */
  async function untilRefusedByGateway(send: () => Promise<unknown>, message: RegExp): Promise<any> {
    let error: any;
    for (let tries = 0; tries < 20; tries += 1) {
      error = await rejection(send());
      if (message.test(String(error?.message))) return error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.fail(`never refused by the gateway; last error: ${error?.message}`);
  }

  test("after an upstream 429 with Retry-After: 2 on the only channel, SDKs raise RateLimitError with a retry-after of at most 2", async () => {
    assert.equal(
      (
        await gateway.admin("POST", "/api/admin/channels", {
          name: "rate-limited",
          type: "openai",
          baseUrl: fakes.openai.baseUrl,
          apiKey: UPSTREAM_API_KEY,
          models: ["limited-model"],
          modelMap: { "limited-model": "fake-rate-limited" },
        })
      ).status,
      201,
    );
    const upstream = await rejection(openai().chat.completions.create({ model: "limited-model", messages: user }));
    assert.ok(upstream instanceof OpenAI.RateLimitError);
    const fromOpenAI = await untilRefusedByGateway(() => openai().chat.completions.create({ model: "limited-model", messages: user }), /rate limited by its upstream/);
    assert.ok(fromOpenAI instanceof OpenAI.RateLimitError, String(fromOpenAI));
    assert.equal(fromOpenAI.code, "rate_limit_exceeded");
    const openAIRetryAfter = Number(fromOpenAI.headers.get("retry-after"));
    assert.ok(openAIRetryAfter >= 1 && openAIRetryAfter <= 2, String(openAIRetryAfter));
    const fromAnthropic = await rejection(anthropic().messages.create({ model: "limited-model", max_tokens: 5, messages: user }));
    assert.ok(fromAnthropic instanceof Anthropic.RateLimitError, String(fromAnthropic));
    assert.equal(errorType(fromAnthropic), "rate_limit_error");
    assert.ok(Number(fromAnthropic.headers.get("retry-after")) <= 2);
    const fromGemini = await rejection(gemini().models.generateContent({ model: "limited-model", contents: "hi" }));
    assert.equal(fromGemini.status, 429);
    assert.equal(JSON.parse(fromGemini.message).error.status, "RESOURCE_EXHAUSTED");
  });

  test("with the only channel's circuit open instead, OpenAI clients get 503 and Anthropic clients 529 overloaded_error", async () => {
    assert.equal(
      (
        await gateway.admin("POST", "/api/admin/channels", {
          name: "broken",
          type: "openai",
          baseUrl: fakes.openai.baseUrl,
          apiKey: UPSTREAM_API_KEY,
          models: ["broken-model"],
          modelMap: { "broken-model": "fake-overloaded" },
        })
      ).status,
      201,
    );
    const fromOpenAI = await untilRefusedByGateway(() => openai().chat.completions.create({ model: "broken-model", messages: user }), /temporarily unavailable/);
    assert.ok(fromOpenAI instanceof OpenAI.InternalServerError);
    assert.equal(fromOpenAI.status, 503);
    const fromAnthropic = await rejection(anthropic().messages.create({ model: "broken-model", max_tokens: 5, messages: user }));
    assert.equal(fromAnthropic.status, 529);
    assert.equal(errorType(fromAnthropic), "overloaded_error");
  });
});

describe("Gemini clients get Gemini errors", () => {
  test("wrong key, unknown model, bad parameter and overload", async () => {
    const cases: [GoogleGenAI, string, Record<string, unknown>, number, string][] = [
      [gemini("sk-wrong"), "gemini-test", {}, 401, "UNAUTHENTICATED"],
      [gemini(), "no-such", {}, 404, "NOT_FOUND"],
      [gemini(), "gemini-test", { temperature: 3 }, 400, "INVALID_ARGUMENT"],
      [gemini(), "gemini-overloaded", {}, 503, "UNAVAILABLE"],
      [gemini(), "claude-overloaded", {}, 503, "UNAVAILABLE"],
    ];
    for (const [client, model, config, status, statusName] of cases) {
      const error = await rejection(client.models.generateContent({ model, contents: "hi", config }));
      assert.ok(error instanceof ApiError, String(error));
      assert.equal(error.status, status, `${model}: ${error.message}\n${gateway.output().slice(-3000)}`);
      assert.equal(JSON.parse(error.message).error.status, statusName);
    }
  });
});

describe("Gemini streams without alt=sse", () => {
  test("are one JSON array of chunks, relayed from Gemini or translated, with usage logged", async () => {
    for (const model of ["gemini-test", "gpt-test", "claude-test"]) {
      const response = await fetch(`${gateway.url}/v1beta/models/${model}:streamGenerateContent`, {
        method: "POST",
        headers: { "x-goog-api-key": key, "content-type": "application/json" },
        body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "array please" }] }] }),
      });
      assert.equal(response.status, 200, model);
      assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
      const chunks = JSON.parse(await response.text()) as any[];
      assert.ok(Array.isArray(chunks) && chunks.length > 1, model);
      const text = chunks.map((chunk) => chunk.candidates?.[0]?.content?.parts?.map((part: any) => part.text ?? "").join("") ?? "").join("");
      assert.match(text, /array please/, model);
      assert.equal(chunks.at(-1).candidates[0].finishReason, "STOP", model);
      const row = await logRow(response.headers.get("x-request-id"));
      assert.ok(row.completionTokens > 0, `${model}: ${JSON.stringify(row)}`);
    }
  });
});

describe("failures after streaming started arrive as in-stream errors", () => {
  test("OpenAI SDK: text first, then an error chunk it throws on", async () => {
    for (const model of ["claude-midstream-error", "gemini-midstream-error", "fake-midstream-error"]) {
      let text = "";
      const error = await rejection(
        (async () => {
          const stream = await openai().chat.completions.create({ model, messages: user, stream: true });
          for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
        })(),
      );
      assert.ok(error instanceof OpenAI.APIError, `${model}: ${error}`);
      assert.equal(text, "Partial");
    }
  });

  test("Anthropic SDK: an error event it throws on, relayed or translated", async () => {
    for (const [model, type] of [
      ["claude-midstream-error", "overloaded_error"],
      ["fake-midstream-error", "api_error"],
      ["gemini-midstream-error", "overloaded_error"],
    ]) {
      let text = "";
      const stream = anthropic().messages.stream({ model: model!, max_tokens: 50, messages: user });
      stream.on("text", (delta) => (text += delta));
      const error = await rejection(stream.finalMessage());
      assert.ok(error instanceof Anthropic.APIError, `${model}: ${error}`);
      assert.equal(errorType(error), type, model);
      assert.equal(text, "Partial");
    }
  });

  test("Gemini SDK: an error chunk it throws on; the log keeps the request with its error", async () => {
    for (const model of ["claude-midstream-error", "fake-midstream-error", "gemini-midstream-error"]) {
      let text = "";
      const error = await rejection(
        (async () => {
          for await (const chunk of await gemini().models.generateContentStream({ model, contents: "hi" })) text += chunk.text ?? "";
        })(),
      );
      assert.ok(error instanceof Error, model);
      assert.equal(text, "Partial", model);
    }
    // Translated from Anthropic, and relayed from Gemini as the upstream's own chunks.
    for (const [model, message] of [
      ["claude-midstream-error", "Overloaded"],
      ["gemini-midstream-error", "The model is overloaded."],
    ]) {
      const response = await fetch(`${gateway.url}/v1beta/models/${model}:streamGenerateContent?alt=sse`, {
        method: "POST",
        headers: { "x-goog-api-key": key, "content-type": "application/json" },
        body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi" }] }] }),
      });
      const body = await response.text();
      assert.equal(response.status, 200);
      assert.ok(body.includes(`"error":{"code":503,"message":"${message}","status":"UNAVAILABLE"}`), body);
      const row = await logRow(response.headers.get("x-request-id"));
      assert.equal(row.status, 200);
      assert.equal(row.errorMessage, message, model);
    }
  });
});

describe("Anthropic-specific plumbing", () => {
  test("anthropic-beta and the client's version reach Anthropic upstreams on relay", async () => {
    await anthropic().messages.create({ model: "claude-test", max_tokens: 5, messages: user }, { headers: { "anthropic-beta": "prompt-caching-2024-07-31,extra-beta" } });
    const sent = fakes.anthropic.received.at(-1)!;
    assert.equal(sent.headers["anthropic-beta"], "prompt-caching-2024-07-31,extra-beta");
    assert.match(String(sent.headers["anthropic-version"]), /^\d{4}-\d{2}-\d{2}$/);
    assert.equal(sent.headers["x-api-key"], ANTHROPIC_KEY);
  });

  test("count_tokens: exact from an Anthropic upstream, estimated elsewhere", async () => {
    const exact = await anthropic().messages.countTokens({ model: "claude-test", messages: user });
    assert.equal(exact.input_tokens, 4242);
    const estimated = await anthropic().messages.countTokens({ model: "gpt-test", messages: [{ role: "user", content: "count these five words" }] });
    assert.ok(estimated.input_tokens >= 4 && estimated.input_tokens < 20, String(estimated.input_tokens));
  });

  test("parameters an upstream cannot take are dropped with a warning in the log", async () => {
    const result = await anthropic()
      .messages.create({ model: "gpt-test", max_tokens: 5, messages: user, ...({ top_k: 5 } as object) })
      .withResponse();
    const row = await logRow(result.response.headers.get("x-request-id"));
    assert.ok(
      row.warnings.some((warning: string) => warning.includes("top_k")),
      JSON.stringify(row.warnings),
    );
    assert.equal(fakes.openai.received.at(-1)!.body.top_k, undefined);
  });
});
