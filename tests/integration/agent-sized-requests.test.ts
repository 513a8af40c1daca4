import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { parseMessagesRequest } from "@/lib/formats/anthropic/parse-request";
import { parseChatCompletionRequest } from "@/lib/formats/openai/parse-request";
import { toAnthropicBody } from "@/lib/providers/anthropic/convert-request";
import { toOpenAIChatBody } from "@/lib/providers/openai/convert-request";
import { startGateway, type Gateway } from "../helpers/start-gateway";
import { addVendorChannels, closeVendorFakes, startVendorFakes, type VendorFakes } from "../helpers/vendor-fakes";

// Requests past 32 KB (an agent's turn) are relayed without the gateway parsing their
// conversation: what it validates itself (the other fields), what it leaves to an
// upstream of the same format, and what it still reads when the conversation must be
// translated, when a relay fails over to a translation, or when a tool call needs its type.

const claudeTurn = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, "..", "fixtures", "coding-agents", "claude-code-turn.json"), "utf8")) as {
  headers: Record<string, string>;
  request: Record<string, any>;
};

let gateway: Gateway;
let key: string;
let fakes: VendorFakes;

before(async () => {
  fakes = await startVendorFakes();
  gateway = await startGateway();
  await addVendorChannels(gateway, fakes, { openai: ["gpt-test", "failover-test"], anthropic: ["claude-test"], gemini: ["gemini-test"] });
  // Tried first for failover-test: an Anthropic upstream that is not there.
  await gateway.admin("POST", "/api/admin/channels", {
    type: "anthropic",
    name: "gone",
    baseUrl: "http://127.0.0.1:9",
    apiKey: "sk-ant-gone",
    models: ["failover-test"],
    priority: 10,
  });
  key = (await gateway.admin("POST", "/api/admin/tokens", { name: "agents" })).body.key;
});

after(async () => {
  await gateway?.stop();
  await closeVendorFakes(fakes);
});

/** A Claude Code turn grown past the deferral size with more file reads. */
function bigClaudeTurn(model: string): Record<string, any> {
  const request = structuredClone(claudeTurn.request);
  const file = "export const line = 'ünïcödé ✓ — a line of a source file';\n".repeat(600);
  const [first, ...rest] = request.messages;
  const reads = [0, 1, 2].flatMap((index) => [
    { role: "assistant", content: [{ type: "tool_use", id: `toolu_extra_${index}`, name: "Read", input: { file_path: `/repo/src/extra-${index}.ts` } }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: `toolu_extra_${index}`, content: file }] },
  ]);
  return { ...request, model, messages: [first, ...reads, ...rest] };
}

async function postMessages(body: string) {
  const response = await fetch(`${gateway.url}/v1/messages?beta=true`, {
    method: "POST",
    headers: { ...claudeTurn.headers, "x-api-key": key, "content-type": "application/json" },
    body,
  });
  return { status: response.status, text: await response.text(), requestId: response.headers.get("x-request-id") };
}

describe("agent-sized requests", () => {
  test("an Anthropic turn goes up byte for byte; translated, it reaches OpenAI whole, with the same replies either way", async () => {
    const relayed = JSON.stringify(bigClaudeTurn("claude-test"));
    assert.ok(relayed.length > 100_000);
    const first = await postMessages(relayed);
    assert.equal(first.status, 200, first.text);
    assert.equal(fakes.anthropic.received.at(-1)!.raw, relayed);
    assert.deepEqual(fakes.anthropic.rejected, []);

    const translated = await postMessages(JSON.stringify(bigClaudeTurn("gpt-test")));
    assert.equal(translated.status, 200, translated.text);
    const openai = fakes.openai.received.at(-1)!.body as Record<string, any>;
    assert.equal(openai.model, "gpt-test");
    // Every tool call and result came through: 3 added reads plus the fixture's own.
    const results = openai.messages.filter((message: any) => message.role === "tool");
    assert.ok(results.some((message: any) => message.tool_call_id === "toolu_extra_2" && message.content.includes("ünïcödé ✓")));
    assert.equal(openai.tools.length, claudeTurn.request.tools.length);
    assert.deepEqual(fakes.openai.rejected, []);
  });

  test("translated, the turn's long strings go up as the client wrote them, in the body a whole parse gives", async () => {
    const request = bigClaudeTurn("gpt-test");
    // A Write call's file is a string inside its input, which becomes the text of a JSON string of its own.
    const file = 'const a = "ü\\n";\n'.repeat(100);
    request.messages.splice(
      1,
      0,
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_write", name: "Write", input: { file_path: "/repo/a.ts", content: file } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_write", content: "ok" }] },
    );
    // As some clients write non-ASCII text: escaped.
    const text = JSON.stringify(request).replaceAll("ünïcödé", "\\u00fcn\\u00efc\\u00f6d\\u00e9");
    const answer = await postMessages(text);
    assert.equal(answer.status, 200, answer.text);
    const received = fakes.openai.received.at(-1)!;
    assert.ok(received.raw.includes("\\u00fcn\\u00efc\\u00f6d\\u00e9"), "the file reads went up as the client's bytes");
    const expected = JSON.parse(JSON.stringify(toOpenAIChatBody(parseMessagesRequest(JSON.parse(text)).chat, "gpt-test", [])));
    const { prompt_cache_key: _, ...body } = received.body as Record<string, unknown>;
    assert.deepEqual(body, expected);
    const write = (body.messages as any[]).find((message) => message.tool_calls?.[0]?.id === "toolu_write");
    assert.deepEqual(JSON.parse(write.tool_calls[0].function.arguments), { file_path: "/repo/a.ts", content: file });
  });

  test("OpenAI chat translated to Anthropic: the long text goes up as the client wrote it, in the body a whole parse gives", async () => {
    const file = "def line():\n    return 'ünïcödé ✓ \\\"q\\\"'\n".repeat(1500);
    const long = `${"Write the file. ".repeat(30)}`;
    const request = {
      model: "claude-test",
      messages: [
        { role: "system", content: `You are a coding agent. ${"Rules. ".repeat(60)}` },
        { role: "user", content: [{ type: "text", text: long }] },
        { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "read", arguments: JSON.stringify({ path: "a.py", note: long }) } }] },
        { role: "tool", tool_call_id: "call_1", content: file },
        { role: "user", content: "Now summarise it." },
      ],
      tools: [
        {
          type: "function",
          function: { name: "read", description: `Reads a file. ${"Details. ".repeat(40)}`, parameters: { type: "object", properties: { path: { type: "string" } } } },
        },
      ],
    };
    const text = JSON.stringify(request).replaceAll("ünïcödé", "\\u00fcn\\u00efc\\u00f6d\\u00e9");
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: text,
    });
    assert.equal(response.status, 200, await response.text());
    const received = fakes.anthropic.received.at(-1)!;
    assert.ok(received.raw.includes("\\u00fcn\\u00efc\\u00f6d\\u00e9"), "the tool result went up as the client's bytes");
    const body = received.body as Record<string, any>;
    const expected = JSON.parse(JSON.stringify(toAnthropicBody(parseChatCompletionRequest(JSON.parse(text)).chat, "claude-test", body.max_tokens, [])));
    assert.deepEqual(body, expected);
    assert.deepEqual(body.messages[1].content[0].input, { path: "a.py", note: long });
  });

  test("a field the gateway reads is still validated by it, in the caller's format, and nothing goes upstream", async () => {
    const before = fakes.anthropic.received.length;
    const answer = await postMessages(JSON.stringify({ ...bigClaudeTurn("claude-test"), max_tokens: "lots" }));
    assert.equal(answer.status, 400, answer.text);
    const error = JSON.parse(answer.text);
    assert.equal(error.type, "error");
    assert.equal(error.error.type, "invalid_request_error");
    assert.match(error.error.message, /max_tokens/);
    assert.equal(fakes.anthropic.received.length, before);
  });

  test("a conversation the schema refuses: an Anthropic upstream says why; a translation refuses it itself, and the channel stays in service", async () => {
    const broken = bigClaudeTurn("claude-test");
    broken.messages[1].role = "robot";
    const relayed = await postMessages(JSON.stringify(broken));
    assert.equal(relayed.status, 400, relayed.text);
    assert.match(JSON.parse(relayed.text).error.message, /role/);

    const before = fakes.openai.received.length;
    const translated = await postMessages(JSON.stringify({ ...broken, model: "gpt-test" }));
    assert.equal(translated.status, 400, translated.text);
    const error = JSON.parse(translated.text);
    assert.equal(error.error.type, "invalid_request_error");
    assert.match(error.error.message, /messages/);
    assert.equal(fakes.openai.received.length, before, "never sent upstream");
    const next = await postMessages(JSON.stringify(bigClaudeTurn("gpt-test")));
    assert.equal(next.status, 200, next.text);
  });

  test("a relay that fails before its first byte fails over to a channel that must translate the turn", async () => {
    const stream = new Anthropic({ apiKey: key, baseURL: gateway.url, maxRetries: 0, defaultHeaders: claudeTurn.headers }).beta.messages.stream(
      bigClaudeTurn("failover-test") as Anthropic.Beta.MessageCreateParamsStreaming,
    );
    const message = await stream.finalMessage();
    assert.equal(message.stop_reason, "end_turn");
    const openai = fakes.openai.received.at(-1)!.body as Record<string, any>;
    assert.equal(openai.model, "failover-test");
    assert.ok(openai.messages.some((entry: any) => entry.tool_call_id === "toolu_extra_0"));
  });

  test("OpenAI chat: the bytes go up as sent, unless a tool call lacks its type, which is filled in as for a small request", async () => {
    const client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const file = "def line():\n    return 'ünïcödé ✓'\n".repeat(1500);
    const messages: any[] = [
      { role: "system", content: "You are a coding agent." },
      { role: "user", content: "Read the file." },
      { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "read", arguments: '{"path":"a.py"}' } }] },
      { role: "tool", tool_call_id: "call_1", content: file },
      { role: "user", content: "Now summarise it." },
    ];
    const tools = [{ type: "function" as const, function: { name: "read", parameters: { type: "object", properties: { path: { type: "string" } } } } }];
    const completion = await client.chat.completions.create({ model: "gpt-test", messages, tools });
    assert.equal(completion.object, "chat.completion");
    const sent = fakes.openai.received.at(-1)!;
    assert.ok(sent.raw.length > 32 * 1024);
    assert.equal(sent.raw, JSON.stringify({ model: "gpt-test", messages, tools }));

    const untyped = messages.map((message) => (message.tool_calls ? { ...message, tool_calls: [{ id: "call_1", function: message.tool_calls[0].function }] } : message));
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-test", messages: untyped, tools }),
    });
    assert.equal(response.status, 200, await response.text());
    const filled = fakes.openai.received.at(-1)!.body as Record<string, any>;
    assert.equal(filled.messages[2].tool_calls[0].type, "function");
  });
});
