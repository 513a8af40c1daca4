import assert from "node:assert/strict";
import http from "node:http";
import { after, before, describe, test } from "node:test";
import { gzipSync } from "node:zlib";
import Anthropic from "@anthropic-ai/sdk";
import { ApiError, GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { ANTHROPIC_KEY, startFakeAnthropicUpstream } from "../helpers/fake-anthropic-upstream";
import { GEMINI_KEY, startFakeGeminiUpstream } from "../helpers/fake-gemini-upstream";
import { startGateway, type Gateway } from "../helpers/start-gateway";

// A body under the size limit can still hold hundreds of thousands of tiny messages. What one
// request may hold is bounded (10,000 messages, 100,000 objects and arrays, 1,000,000 values,
// 128 levels), each past it refused with a 413 in the caller's format before the work it would
// cost, and the gateway keeps serving others. A compressed body that expands past the size
// limit closes its connection, so the next request a client sends is answered on a new one
// (issue 29, items 5 and 9).

let gateway: Gateway;
let key: string;
let fakes: { close(): Promise<void> }[] = [];

before(async () => {
  const [anthropic, gemini] = [await startFakeAnthropicUpstream(), await startFakeGeminiUpstream()];
  fakes = [anthropic, gemini];
  gateway = await startGateway({ MAX_BODY_BYTES: String(20 * 1024 * 1024) });
  for (const channel of [
    { type: "anthropic", baseUrl: anthropic.baseUrl, apiKey: ANTHROPIC_KEY, models: ["claude-test"] },
    { type: "gemini", baseUrl: gemini.baseUrl, apiKey: GEMINI_KEY, models: ["gemini-test"] },
  ]) {
    assert.equal((await gateway.admin("POST", "/api/admin/channels", { name: channel.type, ...channel })).status, 201);
  }
  key = (await gateway.admin("POST", "/api/admin/tokens", { name: "big" })).body.key;
});
after(async () => {
  await gateway?.stop();
  await Promise.all(fakes.map((fake) => fake.close()));
});

const tiny = (count: number) => Array.from({ length: count }, () => ({ role: "user" as const, content: "a" }));
const tinyContents = (count: number) => Array.from({ length: count }, () => ({ role: "user", parts: [{ text: "a" }] }));
/** Past the message limit, within the one on objects and arrays. */
const OVER_MESSAGES = 20_000;
/** The body of the finding: 18 MB of tiny messages, past every limit but the size. */
const FLOOD = 600_000;

async function rejection(promise: Promise<unknown>): Promise<any> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail("the request was answered, not refused");
}

describe("a body of many tiny messages gets a 413 in the caller's format, through its official SDK", () => {
  const openai = () => new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  const anthropic = () => new Anthropic({ baseURL: gateway.url, apiKey: key, maxRetries: 0 });
  const gemini = () => new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: gateway.url } });

  for (const [count, code] of [
    [OVER_MESSAGES, "too_many_messages"],
    [FLOOD, "too_many_json_values"],
  ] as const) {
    test(`${count.toLocaleString("en-US")} messages: OpenAI chat and Responses`, async () => {
      const chat = await rejection(openai().chat.completions.create({ model: "mock-chat", messages: tiny(count) }));
      assert.ok(chat instanceof OpenAI.APIError, String(chat));
      assert.equal(chat.status, 413, chat.message);
      assert.equal(chat.code, code, chat.message);
      assert.equal(chat.type, "invalid_request_error");
      const responses = await rejection(openai().responses.create({ model: "mock-chat", input: tiny(count) }));
      assert.ok(responses instanceof OpenAI.APIError, String(responses));
      assert.equal(responses.status, 413, responses.message);
      assert.equal(responses.code, code, responses.message);
    });

    test(`${count.toLocaleString("en-US")} messages: Anthropic messages`, async () => {
      const error = await rejection(anthropic().messages.create({ model: "mock-chat", max_tokens: 5, messages: tiny(count) }));
      assert.ok(error instanceof Anthropic.APIError, String(error));
      assert.equal(error.status, 413, error.message);
      assert.equal((error.error as any)?.type, "error");
      assert.equal((error.error as any)?.error?.type, "request_too_large", error.message);
    });

    // Gemini's contents are longer: 400,000 fill about as many bytes under the size limit.
    const contents = count === FLOOD ? 400_000 : count;
    test(`${contents.toLocaleString("en-US")} contents: Gemini generateContent`, async () => {
      const error = await rejection(gemini().models.generateContent({ model: "mock-chat", contents: tinyContents(contents) }));
      assert.ok(error instanceof ApiError, String(error));
      assert.equal(error.status, 413, error.message);
      const body = JSON.parse(error.message);
      assert.equal(body.error.code, 413);
      assert.match(body.error.message, count === OVER_MESSAGES ? /'contents' holds 20,000 items.*MAX_REQUEST_MESSAGES/ : /more than 100,000 objects and arrays/);
    });
  }

  test("Anthropic count_tokens is held to the same limit", async () => {
    const error = await rejection(anthropic().messages.countTokens({ model: "mock-chat", messages: tiny(OVER_MESSAGES) }));
    assert.ok(error instanceof Anthropic.APIError, String(error));
    assert.equal(error.status, 413, error.message);
    assert.equal((error.error as any)?.error?.type, "request_too_large", error.message);
  });

  test("a conversation at the limit, and a long agent session with its tool calls, are served", async () => {
    const atLimit = await openai().chat.completions.create({ model: "mock-chat", messages: tiny(10_000) });
    assert.equal(atLimit.object, "chat.completion");
    // 2,000 turns of a coding agent: text, tool calls and their results.
    const messages: Anthropic.MessageParam[] = Array.from({ length: 2000 }, (_, index) =>
      index % 2
        ? {
            role: "assistant",
            content: [
              { type: "text", text: `turn ${index}` },
              { type: "tool_use", id: `t${index}`, name: "edit", input: { path: "a.ts", edits: [{ old: "a", new: "b" }] } },
            ],
          }
        : { role: "user", content: index === 0 ? "start" : [{ type: "tool_result", tool_use_id: `t${index - 1}`, content: [{ type: "text", text: "done" }] }] },
    );
    const tools: Anthropic.Tool[] = [{ name: "edit", input_schema: { type: "object", properties: { path: { type: "string" }, edits: { type: "array" } } } }];
    const answer = await anthropic().messages.create({ model: "mock-chat", max_tokens: 5, tools, messages: [...messages, { role: "user", content: "go on" }] });
    assert.equal(answer.type, "message");
  });
});

describe("bodies of tiny values other than messages", () => {
  test("a flood of stop sequences or nesting past 128 levels is refused in the route's format", async () => {
    const post = async (body: string) => {
      const response = await fetch(`${gateway.url}/v1/messages`, {
        method: "POST",
        headers: { "x-api-key": key, "anthropic-version": "2023-06-01", "content-type": "application/json" },
        body,
      });
      return { status: response.status, json: (await response.json()) as any };
    };
    const stops = await post(`{"model":"mock-chat","max_tokens":5,"messages":[{"role":"user","content":"a"}],"stop_sequences":[${'"a",'.repeat(1_500_000)}"a"]}`);
    assert.equal(stops.status, 413, JSON.stringify(stops.json));
    assert.equal(stops.json.error.type, "request_too_large");
    assert.match(stops.json.error.message, /more than 1,000,000 values/);
    const deep = await post(`{"model":"mock-chat","max_tokens":5,"messages":[{"role":"user","content":"a"}],"metadata":${"[".repeat(200)}${"]".repeat(200)}}`);
    assert.equal(deep.status, 400, JSON.stringify(deep.json));
    assert.equal(deep.json.error.type, "invalid_request_error");
    assert.match(deep.json.error.message, /nested more than 128 levels/);
  });
});

describe("JSON inside a string of the body (tool-call arguments, tool results)", () => {
  const openai = () => new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
  const withArguments = (model: string, args: string, result = "ok"): OpenAI.Chat.ChatCompletionCreateParamsNonStreaming => ({
    model,
    messages: [
      { role: "user", content: "hi" },
      { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "f", arguments: args } }] },
      { role: "tool", tool_call_id: "call_1", content: result },
    ],
  });
  const deep = `{"a":${"[".repeat(20_000)}${"]".repeat(20_000)}}`;

  test("is held to the body's limits when a translation parses it: too deep is a 400, too many values a 413", async () => {
    const tooDeep = await rejection(openai().chat.completions.create(withArguments("claude-test", deep)));
    assert.ok(tooDeep instanceof OpenAI.APIError, String(tooDeep));
    assert.equal(tooDeep.status, 400, tooDeep.message);
    assert.equal(tooDeep.code, "json_too_deep");
    const flood = await rejection(openai().chat.completions.create(withArguments("gemini-test", `[${"0,".repeat(1_500_000)}0]`)));
    assert.ok(flood instanceof OpenAI.APIError, String(flood));
    assert.equal(flood.status, 413, flood.message);
    assert.equal(flood.code, "too_many_json_values");
  });

  test("a tool result too deep to be parsed goes to Gemini as text", async () => {
    const answer = await openai().chat.completions.create(withArguments("gemini-test", "{}", deep));
    assert.equal(answer.object, "chat.completion");
    assert.doesNotMatch(gateway.output(), /Maximum call stack/);
  });
});

describe("several large bodies in flight", () => {
  test("leave /api/health answering before they are all answered, and each gets its 413", async () => {
    const body = JSON.stringify({ model: "mock-chat", messages: tiny(FLOOD) });
    let answered = 0;
    const big = Array.from({ length: 6 }, () =>
      fetch(`${gateway.url}/v1/chat/completions`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body }).then(
        async (response) => {
          const json = (await response.json()) as any;
          answered += 1;
          return { status: response.status, json };
        },
      ),
    );
    const health = await fetch(`${gateway.url}/api/health`);
    assert.equal(health.status, 200);
    await health.arrayBuffer();
    assert.ok(answered < big.length, "health answered only after every large body was");
    for (const answer of await Promise.all(big)) {
      assert.equal(answer.status, 413, JSON.stringify(answer.json).slice(0, 300));
      assert.equal(answer.json.error.code, "too_many_json_values");
    }
  });
});

describe("a compressed body that expands past the limit", () => {
  test("gets its 413, and the next request on a kept-alive connection is answered", async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    // 40 gzip members of 10 MB of spaces each: 400 KB that expand to 400 MB.
    const bomb = Buffer.concat(Array.from({ length: 40 }, () => gzipSync(Buffer.alloc(10_000_000, " "))));
    const send = (body: Buffer, headers: Record<string, string>) =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        const request = http.request(
          `${gateway.url}/v1/chat/completions`,
          { method: "POST", agent, headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "content-length": String(body.length), ...headers } },
          (response) => {
            let text = "";
            response.setEncoding("utf8");
            response.on("data", (chunk) => (text += chunk));
            response.on("end", () => resolve({ status: response.statusCode ?? 0, text }));
          },
        );
        request.on("error", reject);
        request.end(body);
      });
    try {
      const refused = await send(bomb, { "content-encoding": "gzip" });
      assert.equal(refused.status, 413, refused.text.slice(0, 200));
      assert.equal(JSON.parse(refused.text).error.code, "request_too_large");
      const next = await send(Buffer.from(JSON.stringify({ model: "mock-chat", messages: [{ role: "user", content: "hi" }] })), {});
      assert.equal(next.status, 200, next.text.slice(0, 200));
    } finally {
      agent.destroy();
    }
  });
});
