import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, beforeEach, describe, test } from "node:test";
import type { ApiResponse } from "@/lib/canonical/api-types";
import { renderChatCompletion } from "@/lib/formats/openai/render-response";
import { renderChatCompletionStream } from "@/lib/formats/openai/render-stream";
import { openAIFormat } from "@/lib/formats/openai";
import { runCall } from "@/lib/gateway/call-pipeline";
import type { CallScope } from "@/lib/gateway/call-services";
import type { ModelRoute } from "@/lib/models/model-route";
import type { ChatCall } from "@/lib/providers/provider";
import { parseAnthropicError } from "@/lib/providers/anthropic/parse-error";
import { parseGeminiError } from "@/lib/providers/gemini/parse-error";
import { parseOpenAIError } from "@/lib/providers/openai/parse-error";
import { inMemoryCore, testChannel } from "../helpers/in-memory-core";

// The fallback loop in-process: what it tries, in what order, and when it stops.

const received: { model: string; channel: string }[] = [];
let failing = new Set<string>();
let server: http.Server;
let origin = "";

before(async () => {
  server = http.createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => {
      const model = String(JSON.parse(body).model);
      received.push({ model, channel: (request.url ?? "").split("/")[1] ?? "" });
      if (failing.has(model)) {
        response.writeHead(503, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "busy", type: "server_error", code: null } }));
        return;
      }
      response.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          id: "chatcmpl-1",
          object: "chat.completion",
          created: 1,
          model,
          choices: [{ index: 0, message: { role: "assistant", content: `from ${model}` }, finish_reason: "stop" }],
          usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
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
  failing = new Set();
});

const route = (name: string, fields: Partial<ModelRoute> = {}): ModelRoute => ({ name, fallbacks: [], strategy: "weighted", contextWindow: null, ...fields });

function chatCall(model: string): ChatCall {
  return {
    model,
    format: "openai",
    chat: { model, messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }], stream: false },
    relay: { body: { model, messages: [{ role: "user", content: "hi" }] }, stream: false, includeUsage: false, clientHeaders: { get: () => null } },
    render: { renderResponse: renderChatCompletion, renderStream: (events) => renderChatCompletionStream(events, { includeUsage: false, fallbackModel: model }) },
  };
}

function ask(scope: CallScope, model: string): Promise<ApiResponse> {
  return runCall(scope, {
    operation: "chat",
    model,
    stream: false,
    estimate: { inputTokens: 1, outputTokens: 1 },
    call: chatCall(model),
    renderStreamError: openAIFormat.renderStreamError,
  });
}

const channels = () => [
  testChannel("a", { baseUrl: `${origin}/a/v1`, models: ["primary"] }),
  testChannel("b", { baseUrl: `${origin}/b/v1`, models: ["second"] }),
  testChannel("c", { baseUrl: `${origin}/c/v1`, models: ["third"] }),
];

describe("fallbacks in the call core", () => {
  test("a fallback no channel serves is skipped with a warning; the next one serves and the header says from what", async () => {
    failing.add("primary");
    const core = inMemoryCore({ channels: channels(), models: [route("primary", { fallbacks: ["nowhere", "third"] })] });
    const scope = core.scope();
    const answer = await ask(scope, "primary");
    assert.equal(answer.status, 200);
    assert.equal(answer.headers["x-gateway-fallback-from"], "primary");
    assert.deepEqual(
      received.map((request) => request.model),
      ["primary", "third"],
    );
    assert.equal(scope.call.servedModel, "third");
    assert.ok(scope.call.warnings.some((warning) => warning.startsWith("fallback nowhere skipped")));
    await core.close();
  });

  test("a caller that left is not served by a fallback", async () => {
    failing.add("primary");
    const core = inMemoryCore({ channels: channels(), models: [route("primary", { fallbacks: ["second"] })] });
    const controller = new AbortController();
    const scope = core.scope({ signal: controller.signal });
    const asked = ask(scope, "primary");
    // The requested model's attempt is under way; the caller leaves before it fails.
    controller.abort();
    await assert.rejects(asked);
    assert.ok(!received.some((request) => request.model === "second"));
    await core.close();
  });

  test("a request the requested model served is untouched; in-flight counts end with the request", async () => {
    const core = inMemoryCore({ channels: channels(), models: [route("primary", { fallbacks: ["second"], strategy: "least-busy" })] });
    const scope = core.scope();
    const answer = await ask(scope, "primary");
    assert.equal(answer.headers["x-gateway-fallback-from"], undefined);
    assert.equal(core.services.routingStats.inFlight("a"), 1, "counted until the answer has been sent");
    scope.log.finishWith(answer);
    // Recorded once the answer has been handed to the writer (one turn later).
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(core.services.routingStats.inFlight("a"), 0);
    assert.equal(scope.call.servedModel, null);
    await core.close();
  });
});

describe("context-length refusals, as each vendor words them", () => {
  test("are marked, and other 400s are not", () => {
    const openAI = (code: string | null) =>
      parseOpenAIError(
        400,
        JSON.stringify({ error: { message: "This model's maximum context length is 8192 tokens.", type: "invalid_request_error", param: "messages", code } }),
        undefined,
      );
    assert.equal(openAI("context_length_exceeded").contextExceeded, true);
    assert.equal(openAI(null).contextExceeded, false);
    const anthropic = (message: string) => parseAnthropicError(400, JSON.stringify({ type: "error", error: { type: "invalid_request_error", message } }), undefined);
    assert.equal(anthropic("prompt is too long: 215563 tokens > 200000 maximum").contextExceeded, true);
    assert.equal(anthropic("max_tokens: 10000 > 4096, which is the maximum allowed number of output tokens").contextExceeded, false);
    const gemini = (message: string) => parseGeminiError(400, JSON.stringify({ error: { code: 400, message, status: "INVALID_ARGUMENT" } }), undefined);
    assert.equal(gemini("The input token count (1054016) exceeds the maximum number of tokens allowed (1048576).").contextExceeded, true);
    assert.equal(gemini("API key not valid. Please pass a valid API key.").contextExceeded, false);
  });
});
