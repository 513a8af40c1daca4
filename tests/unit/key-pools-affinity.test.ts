import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, beforeEach, describe, test } from "node:test";
import type { ApiResponse } from "@/lib/canonical/api-types";
import { openAIFormat } from "@/lib/formats/openai";
import { renderChatCompletion } from "@/lib/formats/openai/render-response";
import { renderChatCompletionStream } from "@/lib/formats/openai/render-stream";
import { runCall } from "@/lib/gateway/call-pipeline";
import type { ChatCall } from "@/lib/providers/provider";
import { requestSession, sessionHash } from "@/lib/routing/session-affinity";
import { inMemoryCore, testChannel, type InMemoryCore } from "../helpers/in-memory-core";

// Key pools and session affinity in the call core, in-process against a loopback upstream
// whose answer depends on the channel (first path segment) and the key it was sent with.

type Received = { channel: string; key: string; body: Record<string, unknown> };
const received: Received[] = [];
/** Status to answer per "<channel> <key>" (200 when absent). */
const statuses = new Map<string, { status: number; headers?: Record<string, string> }>();
let server: http.Server;
let origin = "";

before(async () => {
  server = http.createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => {
      const channel = (request.url ?? "").split("/")[1] ?? "";
      const key = String(request.headers.authorization ?? "").replace(/^Bearer /, "");
      received.push({ channel, key, body: JSON.parse(body) });
      const scripted = statuses.get(`${channel} ${key}`) ?? statuses.get(channel);
      if (scripted && scripted.status !== 200) {
        response
          .writeHead(scripted.status, { "content-type": "application/json", ...scripted.headers })
          .end(JSON.stringify({ error: { message: `status ${scripted.status}`, type: "error", code: null } }));
        return;
      }
      response.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          id: "chatcmpl-1",
          object: "chat.completion",
          created: 1,
          model: "m",
          choices: [{ index: 0, message: { role: "assistant", content: `from ${channel} ${key}` }, finish_reason: "stop" }],
          usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4, prompt_tokens_details: { cached_tokens: 2 } },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  received.length = 0;
  statuses.clear();
});

function chatCall(body: Record<string, unknown> = {}): ChatCall {
  return {
    model: "m",
    format: "openai",
    chat: { model: "m", messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }], stream: false },
    relay: { body: { model: "m", messages: [{ role: "user", content: "hi" }], ...body }, stream: false, includeUsage: false, clientHeaders: { get: () => null } },
    render: { renderResponse: renderChatCompletion, renderStream: (events) => renderChatCompletionStream(events, { includeUsage: false, fallbackModel: "m" }) },
  };
}

async function call(core: InMemoryCore, session?: string, body?: Record<string, unknown>): Promise<ApiResponse> {
  const scope = core.scope();
  const response = await runCall(scope, {
    operation: "chat",
    model: "m",
    stream: false,
    session,
    estimate: { inputTokens: 1, outputTokens: 1 },
    call: chatCall(body),
    renderStreamError: openAIFormat.renderStreamError,
  });
  scope.log.finish(response.status);
  return response;
}

const pooled = (id: string, keys: string[], priority = 0) => testChannel(id, { baseUrl: `${origin}/${id}/v1`, apiKey: keys[0], apiKeys: keys, priority });
const served = () => received.map((request) => `${request.channel} ${request.key}`);

describe("upstream key pools", () => {
  test("requests spread over the pool's keys", async () => {
    const core = inMemoryCore({ channels: [pooled("a", ["key-a1", "key-a2"])] });
    for (let index = 0; index < 30; index++) assert.equal((await call(core)).status, 200);
    assert.deepEqual(new Set(served()), new Set(["a key-a1", "a key-a2"]));
    await core.close();
  });

  test("a key answering 401 is disabled alone: the same request is served with the other key, which keeps serving", async () => {
    const core = inMemoryCore({ channels: [pooled("a", ["key-a1", "key-a2"])] });
    statuses.set("a key-a1", { status: 401 });
    for (let index = 0; index < 10; index++) assert.equal((await call(core)).status, 200);
    assert.ok(served().filter((entry) => entry === "a key-a1").length <= 1, "the refused key is tried once at most");
    assert.equal(served().filter((entry) => entry === "a key-a2").length, 10);
    assert.equal(core.keyDisables.length, served().includes("a key-a1") ? 1 : 0);
    assert.deepEqual(core.disabled, [], "the channel stays in rotation");
    await core.close();
  });

  test("a 429 cools that key alone for its Retry-After; the channel fails only when no key is left", async () => {
    const core = inMemoryCore({ channels: [pooled("a", ["key-a1", "key-a2"])] });
    statuses.set("a key-a1", { status: 429, headers: { "retry-after": "30" } });
    // Until the pool has picked key-a1 once (keys are picked at random): from then on it cools.
    for (let index = 0; index < 6 || (!served().includes("a key-a1") && index < 200); index++) assert.equal((await call(core)).status, 200);
    assert.equal(served().filter((entry) => entry === "a key-a1").length, 1);
    statuses.set("a key-a2", { status: 401 });
    received.length = 0;
    await assert.rejects(call(core));
    assert.equal(core.disabled.length, 1, "with its last key refused, the channel is disabled as before");
    await core.close();
  });

  test("with every key rate limited the caller gets a 429 naming when the first key is back", async () => {
    const core = inMemoryCore({ channels: [pooled("a", ["key-a1", "key-a2"])] });
    statuses.set("a key-a1", { status: 429, headers: { "retry-after": "20" } });
    statuses.set("a key-a2", { status: 429, headers: { "retry-after": "40" } });
    await assert.rejects(call(core), (error: any) => error.status === 429);
    received.length = 0;
    await assert.rejects(call(core), (error: any) => error.status === 429 && error.retryAfterSeconds > 0 && error.retryAfterSeconds <= 20);
    assert.deepEqual(received, [], "no key is tried while all rest");
    core.advance(21_000);
    statuses.clear();
    assert.equal((await call(core)).status, 200);
    assert.deepEqual(served(), ["a key-a1"], "the first key back serves");
    await core.close();
  });

  test("the attempt log names the key by its last four characters only", async () => {
    const core = inMemoryCore({ channels: [pooled("a", ["sk-secret-aaaa1111", "sk-secret-bbbb2222"])] });
    await call(core);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const text = JSON.stringify(core.entries);
    assert.match(text, /…(1111|2222)/);
    assert.doesNotMatch(text, /sk-secret/);
    await core.close();
  });
});

describe("session affinity", () => {
  test("each session keeps one channel and key; sessions spread; no session still spreads", async () => {
    const core = inMemoryCore({ channels: [pooled("a", ["key-a1", "key-a2"]), pooled("b", ["key-b1", "key-b2"])] });
    const homes = new Set<string>();
    for (let session = 0; session < 10; session++) {
      received.length = 0;
      for (let turn = 0; turn < 6; turn++) await call(core, `session-${session}`);
      assert.equal(new Set(served()).size, 1, `session ${session} stayed on one channel and key: ${served().join(", ")}`);
      homes.add(served()[0]!);
    }
    assert.ok(homes.size >= 2, `sessions spread over the pool: ${[...homes].join(", ")}`);
    received.length = 0;
    for (let index = 0; index < 20; index++) await call(core);
    assert.ok(new Set(served()).size >= 2, "requests without a session still spread");
    await core.close();
  });

  test("a session whose channel starts failing moves once and stays", async () => {
    const core = inMemoryCore({ channels: [pooled("a", ["key-a1", "key-a2"]), pooled("b", ["key-b1", "key-b2"])] });
    await call(core, "moving");
    const home = received[0]!.channel;
    const other = home === "a" ? "b" : "a";
    statuses.set(home, { status: 500 });
    received.length = 0;
    for (let turn = 0; turn < 5; turn++) assert.equal((await call(core, "moving")).status, 200);
    assert.deepEqual(
      received.map((request) => request.channel),
      [home, ...Array(5).fill(other)],
    );
    assert.equal(new Set(received.slice(1).map((request) => request.key)).size, 1, "and on one key there");
    await core.close();
  });

  test("a pin outside the top priority is not followed back down; TTL 0 turns affinity off", async () => {
    const core = inMemoryCore({
      channels: [testChannel("low", { baseUrl: `${origin}/low/v1`, priority: 0 }), testChannel("high", { baseUrl: `${origin}/high/v1`, priority: 10 })],
    });
    statuses.set("high", { status: 500 });
    await call(core, "s");
    statuses.clear();
    received.length = 0;
    await call(core, "s");
    assert.deepEqual(
      received.map((request) => request.channel),
      ["high"],
    );
    await core.close();

    const off = inMemoryCore({ channels: [pooled("a", ["key-a1", "key-a2"]), pooled("b", ["key-b1", "key-b2"])], affinityTtlSeconds: 0 });
    received.length = 0;
    for (let turn = 0; turn < 20; turn++) await call(off, "same");
    assert.ok(new Set(served()).size >= 2, "without affinity one session spreads like any request");
    await off.close();
  });

  test("an OpenAI upstream gets prompt_cache_key from the session's hash when the body has none, never the raw id", async () => {
    const core = inMemoryCore({ channels: [pooled("a", ["key-a1", "key-a2"])] });
    await call(core, "raw-session-id");
    assert.equal(received[0]!.body.prompt_cache_key, sessionHash("raw-session-id"));
    assert.doesNotMatch(JSON.stringify(received[0]!.body), /raw-session-id/);
    await call(core, "client-key", { prompt_cache_key: "client-key" });
    assert.equal(received[1]!.body.prompt_cache_key, "client-key", "the client's own key is kept");
    await call(core);
    assert.equal(received[2]!.body.prompt_cache_key, undefined);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(core.entries[0]!.sessionHash, sessionHash("raw-session-id"));
    assert.equal(core.entries[0]!.cachedTokens, 2);
    await core.close();
  });

  test("the session is the first of prompt_cache_key, the agents' headers, Anthropic metadata.user_id", () => {
    const headers = (values: Record<string, string>) => ({ get: (name: string) => values[name] ?? null });
    assert.equal(requestSession({ promptCacheKey: "pck", headers: headers({ "session-id": "h" }) }), "pck");
    assert.equal(requestSession({ headers: headers({ session_id: "codex" }), anthropicUserId: "u" }), "codex");
    assert.equal(requestSession({ headers: headers({ "x-claude-code-session-id": "cc", "x-session-affinity": "oc" }) }), "cc");
    assert.equal(requestSession({ headers: headers({ "x-session-affinity": "oc" }) }), "oc");
    assert.equal(requestSession({ headers: headers({}), anthropicUserId: "user_1_session_2" }), "user_1_session_2");
    assert.equal(requestSession({ headers: headers({}) }), undefined);
  });
});
