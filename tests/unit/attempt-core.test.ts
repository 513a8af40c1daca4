import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, beforeEach, describe, test } from "node:test";
import type { ApiResponse } from "@/lib/canonical/api-types";
import { isGatewayError } from "@/lib/canonical/gateway-error";
import type { ChatRequest } from "@/lib/canonical/request";
import { renderMessage } from "@/lib/formats/anthropic/render-response";
import { renderMessageStream } from "@/lib/formats/anthropic/render-stream";
import { openAIFormat } from "@/lib/formats/openai";
import { renderChatCompletion } from "@/lib/formats/openai/render-response";
import { renderChatCompletionStream } from "@/lib/formats/openai/render-stream";
import { runCall } from "@/lib/gateway/call-pipeline";
import type { ChatCall } from "@/lib/providers/provider";
import { providers } from "@/lib/providers/registry";
import { HOPS_HEADER } from "@/lib/net/loop-guard";
import { acmeProvider } from "../helpers/acme-provider";
import { inMemoryCore, testChannel, type InMemoryCore } from "../helpers/in-memory-core";

// The admit, pick and attempt core driven in-process against a loopback upstream whose
// answer per channel the test sets: failover order, what counts against a channel,
// cool-downs, the breaker, disabling, first-byte priming, and a test-only provider type.

type Script = (request: http.IncomingMessage, body: string, response: http.ServerResponse) => void;
const received: { channel: string; method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
const scripts = new Map<string, Script>();
let server: http.Server;
let origin = "";

const completion = (text: string) =>
  JSON.stringify({
    id: "chatcmpl-1",
    object: "chat.completion",
    created: 1,
    model: "up",
    choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
    usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
  });
const answer =
  (text: string): Script =>
  (_request, _body, response) => {
    response.writeHead(200, { "content-type": "application/json" }).end(completion(text));
  };
const fail =
  (status: number, headers: Record<string, string> = {}): Script =>
  (_request, _body, response) => {
    response
      .writeHead(status, { "content-type": "application/json", ...headers })
      .end(JSON.stringify({ error: { message: `status ${status}`, type: "server_error", code: null } }));
  };

before(async () => {
  server = http.createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => {
      // The channel is the first path segment: /<channel>/...
      const channel = (request.url ?? "").split("/")[1] ?? "";
      received.push({ channel, method: request.method ?? "", url: request.url ?? "", headers: request.headers, body });
      (scripts.get(channel) ?? fail(404))(request, body, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  received.length = 0;
  scripts.clear();
});

const chat = (stream = false): ChatRequest => ({ model: "m", messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }], stream });

function openAIChatCall(stream = false): ChatCall {
  return {
    model: "m",
    format: "openai",
    chat: chat(stream),
    relay: { body: { model: "m", messages: [{ role: "user", content: "hi" }], stream }, stream, includeUsage: false, clientHeaders: { get: () => null } },
    render: { renderResponse: renderChatCompletion, renderStream: (events) => renderChatCompletionStream(events, { includeUsage: false, fallbackModel: "m" }) },
  };
}

function call(core: InMemoryCore, chatCall: ChatCall = openAIChatCall()): Promise<ApiResponse> {
  return runCall(core.scope(), {
    operation: "chat",
    model: "m",
    stream: chatCall.chat.stream,
    estimate: { inputTokens: 1, outputTokens: 1 },
    call: chatCall,
    renderStreamError: openAIFormat.renderStreamError,
  });
}

const channelAt = (id: string, priority: number, fields = {}) => testChannel(id, { baseUrl: `${origin}/${id}/v1`, priority, ...fields });
const bodyText = async (response: ApiResponse) => {
  if (typeof response.body === "string") return response.body;
  if (response.body instanceof Uint8Array) return Buffer.from(response.body).toString("utf8");
  let text = "";
  for await (const chunk of response.body as AsyncIterable<string | Uint8Array>) text += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
  return text;
};

describe("the attempt core", () => {
  test("fails over in priority order; the failed channel's fault is recorded, the attempts logged in order", async () => {
    const core = inMemoryCore({ channels: [channelAt("b", 0), channelAt("a", 10)] });
    scripts.set("a", fail(500));
    scripts.set("b", answer("from b"));
    const response = await call(core);
    assert.equal(response.status, 200);
    assert.match(await bodyText(response), /from b/);
    assert.deepEqual(
      received.map((request) => request.channel),
      ["a", "b"],
    );
    assert.deepEqual(
      core.health.map((sample) => [sample.channelId, sample.error !== null]),
      [
        ["a", true],
        ["b", false],
      ],
    );
    assert.equal(received[1]!.headers.authorization, "Bearer sk-upstream");
    await core.close();
  });

  test("a 400 is the caller's: no failover, nothing counted against the channel", async () => {
    const core = inMemoryCore({ channels: [channelAt("a", 10), channelAt("b", 0)] });
    scripts.set("a", fail(400));
    scripts.set("b", answer("never"));
    await assert.rejects(call(core), (error) => isGatewayError(error) && error.status === 400);
    assert.deepEqual(
      received.map((request) => request.channel),
      ["a"],
    );
    assert.deepEqual(core.health, []);
    await core.close();
  });

  test("a 429 with Retry-After cools the channel down for that long, then it is tried again", async () => {
    const core = inMemoryCore({ channels: [channelAt("a", 10), channelAt("b", 0)] });
    scripts.set("a", fail(429, { "retry-after": "2" }));
    scripts.set("b", answer("from b"));
    await call(core);
    assert.deepEqual(
      received.map((request) => request.channel),
      ["a", "b"],
    );
    received.length = 0;
    await call(core);
    assert.deepEqual(
      received.map((request) => request.channel),
      ["b"],
      "a is cooling down",
    );
    core.advance(2500);
    received.length = 0;
    scripts.set("a", answer("from a"));
    assert.match(await bodyText(await call(core)), /from a/);
    assert.deepEqual(
      received.map((request) => request.channel),
      ["a"],
    );
    await core.close();
  });

  test("with its only channel cooling down after a 429, the next call is told to come back: 429 rate_limit_exceeded with the time left", async () => {
    const core = inMemoryCore({ channels: [channelAt("a", 10)] });
    scripts.set("a", fail(429, { "retry-after": "2" }));
    await assert.rejects(call(core), (error) => isGatewayError(error) && error.status === 429);
    received.length = 0;
    let refusal: unknown;
    await call(core).catch((error) => (refusal = error));
    assert.deepEqual(received, [], "the cooling channel is not called");
    assert.ok(isGatewayError(refusal));
    assert.equal(refusal.kind, "rate_limit");
    assert.equal(refusal.code, "rate_limit_exceeded");
    assert.ok(refusal.retryAfterSeconds! >= 1 && refusal.retryAfterSeconds! <= 2, String(refusal.retryAfterSeconds));
    const rendered = openAIFormat.renderError(refusal);
    assert.equal(rendered.status, 429);
    assert.equal(rendered.headers?.["retry-after"], String(refusal.retryAfterSeconds));
    await core.close();
  });

  test("with its only channel's circuit open instead, the call is refused as unavailable (503, Anthropic's 529)", async () => {
    const core = inMemoryCore({ channels: [channelAt("a", 10)] });
    scripts.set("a", fail(500));
    for (let i = 0; i < 2; i += 1) await call(core).catch(() => undefined);
    received.length = 0;
    await assert.rejects(call(core), (error) => isGatewayError(error) && error.kind === "overloaded" && error.code === "no_channel_available");
    assert.deepEqual(received, []);
    await core.close();
  });

  test("ROUTING_MAX_WAIT_MS: a call waits out a cool-down that ends within it, then goes to the channel", async () => {
    const core = inMemoryCore({ channels: [channelAt("a", 10)], maxWaitMs: 3000 });
    scripts.set("a", fail(429, { "retry-after": "1" }));
    const refusedAt = Date.now();
    await call(core).catch(() => undefined);
    scripts.set("a", answer("after the wait"));
    assert.match(await bodyText(await call(core)), /after the wait/);
    assert.ok(Date.now() - refusedAt >= 1000, "the channel was called again only once its cool-down had ended");
    await core.close();
  });

  test("consecutive failures open the breaker: the channel is skipped until its open time has passed", async () => {
    const core = inMemoryCore({ channels: [channelAt("a", 10), channelAt("b", 0)] });
    scripts.set("a", fail(503));
    scripts.set("b", answer("from b"));
    await call(core);
    await call(core);
    received.length = 0;
    await call(core);
    assert.deepEqual(
      received.map((request) => request.channel),
      ["b"],
      "a's circuit is open",
    );
    core.advance(31_000);
    received.length = 0;
    await call(core);
    assert.deepEqual(
      received.map((request) => request.channel),
      ["a", "b"],
      "one probe goes to a once it is due",
    );
    await core.close();
  });

  test("a refused key disables the channel, and the caller gets a 502 that never says 401", async () => {
    const core = inMemoryCore({ channels: [channelAt("a", 10)] });
    scripts.set("a", fail(401));
    await assert.rejects(call(core), (error) => isGatewayError(error) && error.status === 502 && error.code === "upstream_auth_failed");
    assert.equal(core.disabled.length, 1);
    assert.equal(core.disabled[0]!.channelId, "a");
    await core.close();
  });

  test("the attempt budget bounds the channels tried", async () => {
    const core = inMemoryCore({ channels: [channelAt("a", 30), channelAt("b", 20), channelAt("c", 10)], maxAttempts: 2 });
    for (const id of ["a", "b", "c"]) scripts.set(id, fail(500));
    await assert.rejects(call(core), (error) => isGatewayError(error) && error.status === 500);
    assert.deepEqual(
      received.map((request) => request.channel),
      ["a", "b"],
    );
    await core.close();
  });

  test("a stream whose first event is not one fails over before anything reaches the client", async () => {
    const core = inMemoryCore({ channels: [channelAt("a", 10), channelAt("b", 0)] });
    scripts.set("a", (_request, _body, response) => response.writeHead(200, { "content-type": "text/event-stream" }).end("<html>not a stream</html>\n\n"));
    scripts.set("b", (_request, _body, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      const chunk = (delta: object, finish: string | null) =>
        `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "up", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      response.end(`${chunk({ role: "assistant", content: "streamed" }, null) + chunk({}, "stop")}data: [DONE]\n\n`);
    });
    const response = await call(core, openAIChatCall(true));
    const text = await bodyText(response);
    assert.match(text, /streamed/);
    assert.deepEqual(
      received.map((request) => request.channel),
      ["a", "b"],
    );
    await core.close();
  });

  test("every upstream request carries the loop guard's hop header", async () => {
    const core = inMemoryCore({ channels: [channelAt("a", 10)] });
    scripts.set("a", answer("ok"));
    await runCall(core.scope({ hops: "upstreamgw,thisgw" }), {
      operation: "chat",
      model: "m",
      stream: false,
      estimate: { inputTokens: 1, outputTokens: 1 },
      call: openAIChatCall(),
      renderStreamError: openAIFormat.renderStreamError,
    });
    assert.equal(received[0]!.headers[HOPS_HEADER], "upstreamgw,thisgw");
    await core.close();
  });

  test("a channel whose provider has no member for the operation is no candidate", async () => {
    const core = inMemoryCore({ channels: [channelAt("a", 10, { type: "anthropic" })] });
    await assert.rejects(
      runCall(core.scope(), {
        operation: "images",
        model: "m",
        stream: false,
        estimate: { inputTokens: 1, outputTokens: 0 },
        call: { body: { model: "m", prompt: "x" }, model: "m", stream: false, includeUsage: false, clientHeaders: { get: () => null } },
        renderStreamError: () => undefined,
      }),
      (error) => isGatewayError(error) && error.status === 404 && error.code === "model_not_found",
    );
    assert.equal(received.length, 0);
    await core.close();
  });
});

describe("a provider type of its own (tests/helpers/acme-provider)", () => {
  const registry = { ...providers, acme: acmeProvider };

  test("its URL layout and auth header carry an OpenAI client's body, relayed as bytes", async () => {
    const channel = channelAt("acme", 0, { type: "acme", baseUrl: `${origin}/acme`, apiKey: "acme-secret", settings: { tenant: "t1" }, modelMap: { m: "model-7" } });
    const core = inMemoryCore({ channels: [channel], providers: registry });
    scripts.set("acme", answer("from acme"));
    const response = await call(core);
    assert.match(await bodyText(response), /from acme/);
    assert.equal(received[0]!.url, "/acme/tenants/t1/deployments/model-7/chat/completions");
    assert.equal(received[0]!.headers["x-acme-key"], "acme-secret");
    assert.equal(received[0]!.headers.authorization, undefined);
    assert.equal(JSON.parse(received[0]!.body).model, "model-7");
    await core.close();
  });

  test("an Anthropic client's request is translated to it through the OpenAI format's members", async () => {
    const channel = channelAt("acme", 0, { type: "acme", baseUrl: `${origin}/acme`, apiKey: "acme-secret", settings: { tenant: "t2" } });
    const core = inMemoryCore({ channels: [channel], providers: registry });
    scripts.set("acme", answer("translated"));
    const response = await call(core, {
      model: "m",
      format: "anthropic",
      chat: chat(),
      relay: { body: { model: "m", max_tokens: 10, messages: [{ role: "user", content: "hi" }] }, stream: false, includeUsage: true, clientHeaders: { get: () => null } },
      render: { renderResponse: (result) => renderMessage(result, "m"), renderStream: (events) => renderMessageStream(events, { model: "m" }) },
    });
    const message = JSON.parse(await bodyText(response));
    assert.equal(message.type, "message");
    assert.equal(message.content[0].text, "translated");
    assert.equal(received[0]!.url, "/acme/tenants/t2/deployments/m/chat/completions");
    await core.close();
  });
});
