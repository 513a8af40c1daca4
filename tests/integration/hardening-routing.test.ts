import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { eventually } from "../helpers/eventually";
import { startFakeServer, type FakeServer, type ReceivedRequest } from "../helpers/fake-upstream-server";
import { startGateway, type Gateway } from "../helpers/start-gateway";

// One caller must not take a shared channel down, spend past a limit through a fallback,
// escape its owner's limits, or move another caller's session pin (issue 29: 1, 2, 3, 6, 14).

const KEYS = ["sk-pool-first-0123456789abcdef", "sk-pool-second-0123456789abcdef"];
const GEMINI_KEY = "gemini-shared-key-0123456789abcdef";

let gateway: Gateway;
let openaiFake: FakeServer;
let geminiFake: FakeServer;
let pinA: FakeServer;
let pinB: FakeServer;

const completion = (model: string, usage = { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 }) => ({
  id: "chatcmpl-hardening",
  object: "chat.completion",
  created: 1_700_000_000,
  model,
  choices: [{ index: 0, message: { role: "assistant", content: "served", refusal: null }, logprobs: null, finish_reason: "stop" }],
  usage,
});

function json(response: import("node:http").ServerResponse, status: number, body: unknown) {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}

/** The last user message's text of an OpenAI chat body. */
function userText(request: ReceivedRequest): string {
  const messages = (request.body?.messages ?? []) as { role: string; content: unknown }[];
  const last = messages.filter((message) => message.role === "user").at(-1);
  return typeof last?.content === "string" ? last.content : "";
}

before(async () => {
  // An OpenAI account that lacks one model (403 naming it), serves the rest, fails `broken-*`
  // with a 500 and bills `pricey` 1,000 output tokens a request.
  openaiFake = await startFakeServer((request, response) => {
    const model = String(request.body?.model ?? "");
    if (model === "denied-model") {
      return json(response, 403, {
        error: { message: `Project \`proj_abc\` does not have access to model \`${model}\``, type: "invalid_request_error", param: null, code: "model_not_found" },
      });
    }
    if (model.startsWith("broken")) return json(response, 500, { error: { message: "upstream is down", type: "server_error", param: null, code: null } });
    if (model === "pricey") return json(response, 200, completion(model, { prompt_tokens: 10, completion_tokens: 1000, total_tokens: 1010 }));
    return json(response, 200, completion(model));
  });
  geminiFake = await startFakeServer((request, response) => {
    const model = /models\/([^:/]+):/.exec(request.path)?.[1] ?? "";
    if (model === "gemini-denied") {
      return json(response, 403, { error: { code: 403, message: `Permission denied on resource project proj-x for model models/${model}.`, status: "PERMISSION_DENIED" } });
    }
    return json(response, 200, {
      candidates: [{ content: { role: "model", parts: [{ text: "served" }] }, finishReason: "STOP", index: 0 }],
      usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 2, totalTokenCount: 7 },
      modelVersion: model,
    });
  });
  // Two equal channels for session pins; each fails a turn that asks it to.
  const pinFake = (name: string) =>
    startFakeServer((request, response) => {
      if (userText(request) === `fail-${name}`) return json(response, 500, { error: { message: "asked to fail", type: "server_error", param: null, code: null } });
      return json(response, 200, completion(String(request.body?.model ?? "")));
    });
  pinA = await pinFake("a");
  pinB = await pinFake("b");
  gateway = await startGateway({ ROUTING_BACKOFF_MS: "0", CIRCUIT_CONSECUTIVE_FAILURES: "100000", CIRCUIT_MIN_REQUESTS: "100000", CHANNEL_PROBE_INTERVAL_MS: "600000" });
  for (const channel of [
    { name: "shared-pool", type: "openai", baseUrl: `${openaiFake.origin}/v1`, apiKeys: KEYS, models: ["denied-model", "open-model"] },
    { name: "shared-gemini", type: "gemini", baseUrl: `${geminiFake.origin}/v1beta`, apiKey: GEMINI_KEY, models: ["gemini-denied", "gemini-open"] },
    { name: "cheap", type: "openai", baseUrl: `${openaiFake.origin}/v1`, apiKey: KEYS[0], models: ["broken-cheap", "broken-cheap-2"], prices: { "*": { input: 0, output: 0 } } },
    { name: "pricey", type: "openai", baseUrl: `${openaiFake.origin}/v1`, apiKey: KEYS[0], models: ["pricey"], prices: { pricey: { input: 0, output: 300 } } },
    { name: "pin-a", type: "openai", baseUrl: `${pinA.origin}/v1`, apiKey: KEYS[0], models: ["pinned"] },
    { name: "pin-b", type: "openai", baseUrl: `${pinB.origin}/v1`, apiKey: KEYS[0], models: ["pinned"] },
  ]) {
    const created = await gateway.admin("POST", "/api/admin/channels", channel);
    assert.equal(created.status, 201, JSON.stringify(created.body));
  }
  for (const name of ["broken-cheap", "broken-cheap-2"]) {
    assert.equal((await gateway.admin("POST", "/api/admin/models", { name, fallbacks: ["pricey"] })).status, 201);
  }
  for (const key of KEYS) gateway.secrets.add(key);
  gateway.secrets.add(GEMINI_KEY);
});

after(async () => {
  await gateway?.stop();
  await Promise.all([openaiFake, geminiFake, pinA, pinB].map((fake) => fake?.close()));
});

async function newToken(fields: Record<string, unknown> = {}): Promise<string> {
  const created = await gateway.admin("POST", "/api/admin/tokens", { name: `t-${Math.random().toString(36).slice(2, 8)}`, ...fields });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  gateway.secrets.add(created.body.key);
  return created.body.key;
}

async function chat(key: string, model: string, content = "hi", headers: Record<string, string> = {}) {
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
    body: JSON.stringify({ model, max_tokens: 1000, messages: [{ role: "user", content }] }),
  });
  const body = (await response.json()) as { error?: { code?: string; message: string }; choices?: unknown[] };
  return { status: response.status, retryAfter: response.headers.get("retry-after"), body };
}

async function channelByName(name: string) {
  const { body } = await gateway.admin<{ data: { id: string; name: string; autoDisabledReason: string | null; keys: { key: string; state: string }[] }[] }>(
    "GET",
    "/api/admin/channels",
  );
  return body.data.find((channel) => channel.name === name)!;
}

describe("a 403 that names one model", () => {
  test("rests that model on the channel: its keys, the channel and its other models keep serving every tenant", async () => {
    const attacker = await newToken();
    const bystander = await newToken();
    const answers = await Promise.all(Array.from({ length: 30 }, () => chat(attacker, "denied-model")));
    for (const answer of answers) {
      assert.equal(answer.status, 503, JSON.stringify(answer.body));
      assert.equal(answer.body.error?.code, "model_unavailable");
      assert.ok(Number(answer.retryAfter) >= 1, "Retry-After set");
      assert.doesNotMatch(answer.body.error!.message, /does not exist/);
    }
    const channel = await channelByName("shared-pool");
    assert.equal(channel.autoDisabledReason, null, "the channel stays in rotation");
    assert.deepEqual(
      channel.keys.map((key) => key.state),
      ["active", "active"],
      "no key was disabled",
    );
    // Another tenant's requests for the channel's other model, on every process.
    for (let index = 0; index < 6; index++) {
      const served = await chat(bystander, "open-model");
      assert.equal(served.status, 200, JSON.stringify(served.body));
    }
    // The refused model rests: further requests do not reach the upstream while it does.
    const seen = openaiFake.received.filter((request) => request.body?.model === "denied-model").length;
    await eventually(async () => {
      const again = await chat(bystander, "denied-model");
      assert.equal(again.status, 503);
      assert.equal(openaiFake.received.filter((request) => request.body?.model === "denied-model").length, seen);
    });
  });

  test("Gemini's PERMISSION_DENIED for one model leaves the channel serving its others", async () => {
    const caller = await newToken();
    const answers = await Promise.all(Array.from({ length: 20 }, () => chat(caller, "gemini-denied")));
    for (const answer of answers) assert.equal(answer.status, 503, JSON.stringify(answer.body));
    assert.equal((await channelByName("shared-gemini")).autoDisabledReason, null);
    const served = await chat(await newToken(), "gemini-open");
    assert.equal(served.status, 200, JSON.stringify(served.body));
  });
});

describe("fallbacks and limits", () => {
  test("concurrent requests falling back to a pricey model stay within the budget", async () => {
    // Each pricey answer costs $0.30 (1,000 output tokens at $300/M): a $1 budget serves three.
    const key = await newToken({ budgetUsd: 1 });
    const answers = await Promise.all(Array.from({ length: 20 }, () => chat(key, "broken-cheap")));
    const served = answers.filter((answer) => answer.status === 200).length;
    assert.ok(served >= 1 && served <= 3, `served ${served} of 20 on a $1 budget`);
    for (const answer of answers.filter((answer) => answer.status !== 200)) assert.equal(answer.status, 429, JSON.stringify(answer.body));
  });

  test("a full window on the fallback model keeps requests from reaching it", async () => {
    const key = await newToken({ limits: [{ window: "day", requests: 2, models: ["pricey"] }] });
    const answers = await Promise.all(Array.from({ length: 8 }, () => chat(key, "broken-cheap-2")));
    const served = answers.filter((answer) => answer.status === 200).length;
    assert.equal(served, 2, `served ${served} through the fallback with a 2-request window on it`);
    // Asked for directly, the window is just as full.
    assert.equal((await chat(key, "pricey")).status, 429);
  });
});

describe("a user's limits bind every token the user owns", () => {
  test("a token with no limits of its own is held to its owner's rate limit and models", async () => {
    const user = await gateway.admin("POST", "/api/admin/users", { email: `limited-${Date.now()}@example.com`, password: "a long enough password 1" });
    assert.equal(user.status, 201, JSON.stringify(user.body));
    const patched = await gateway.admin("PATCH", `/api/admin/users/${user.body.id}`, { rpm: 5, models: ["open-model"] });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    const key = await newToken({ userId: user.body.id });
    const answers = await Promise.all(Array.from({ length: 12 }, () => chat(key, "open-model")));
    assert.equal(answers.filter((answer) => answer.status === 200).length, 5, "the owner's 5 requests a minute");
    assert.ok(answers.every((answer) => answer.status === 200 || answer.status === 429));
    const other = await chat(key, "gemini-open");
    assert.equal(other.status, 403, "a model outside the owner's list");
  });
});

describe("session pins", () => {
  test("two tokens sending the same session id keep pins of their own", async () => {
    const first = await newToken();
    const second = await newToken();
    const session = { "x-session-affinity": `shared-session-${Date.now()}` };
    const count = (fake: FakeServer) => fake.received.length;
    // The second token's session lands on pin-a (pin-b refuses that turn)...
    assert.equal((await chat(second, "pinned", "fail-b", session)).status, 200);
    // ...then the first token's, with the same id, lands on pin-b.
    assert.equal((await chat(first, "pinned", "fail-a", session)).status, 200);
    const before = { a: count(pinA), b: count(pinB) };
    for (let index = 0; index < 4; index++) assert.equal((await chat(second, "pinned", "next turn", session)).status, 200);
    assert.equal(count(pinA) - before.a, 4, "the second token's turns stay on its own pin");
    assert.equal(count(pinB) - before.b, 0);
  });
});
