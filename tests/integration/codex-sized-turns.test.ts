import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { parseResponsesBody, toCanonical } from "@/lib/formats/responses/parse-request";
import { toAnthropicBody } from "@/lib/providers/anthropic/convert-request";
import { toOpenAIChatBody } from "@/lib/providers/openai/convert-request";
import { OPENAI_COMPACTION_BLOB } from "../helpers/fake-openai-operations";
import { startGateway, type Gateway } from "../helpers/start-gateway";
import { addVendorChannels, closeVendorFakes, startVendorFakes, type VendorFakes } from "../helpers/vendor-fakes";

// /v1/responses turns past 32 KB (a Codex session) are relayed without the gateway parsing
// their input: the bytes go up as sent, what the gateway must read in the input first (its
// own sealed compaction items, a compaction trigger) is still read however it is written,
// and a translation still parses and validates the whole turn.

const fixture = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, "..", "fixtures", "coding-agents", "codex-turn.json"), "utf8")) as {
  headers: Record<string, string>;
  request: Record<string, any>;
};

let gateway: Gateway;
let key: string;
let fakes: VendorFakes;
let client: OpenAI;

before(async () => {
  fakes = await startVendorFakes();
  gateway = await startGateway();
  await addVendorChannels(gateway, fakes, { openai: ["gpt-test", "chat-only-test"], anthropic: ["claude-test"], gemini: ["gemini-test"] });
  key = (await gateway.admin("POST", "/api/admin/tokens", { name: "codex" })).body.key;
  client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0, defaultHeaders: fixture.headers });
});

after(async () => {
  await gateway?.stop();
  await closeVendorFakes(fakes);
});

const FILE = "export const line = 'ünïcödé ✓ — a line of a source file';\n".repeat(200);

/** Codex's turn grown past the deferral size with more shell calls, each answered by a file's contents; `last` items go at the end. */
function bigTurn(model: string, ...last: object[]): Record<string, any> {
  const request = structuredClone(fixture.request);
  const reads = [0, 1, 2, 3].flatMap((index) => [
    { type: "function_call", name: "exec_command", arguments: JSON.stringify({ cmd: `cat src/extra-${index}.ts` }), call_id: `call_extra_${index}` },
    { type: "function_call_output", call_id: `call_extra_${index}`, output: FILE },
  ]);
  return { ...request, model, input: [...request.input, ...reads, ...last] };
}

/** The body as a client that escapes non-ASCII writes it (Python's json.dumps does). */
const escaped = (body: object) => JSON.stringify(body).replace(/ü/g, "\\u00fc");

async function post(body: string) {
  const response = await fetch(`${gateway.url}/v1/responses`, {
    method: "POST",
    headers: { ...fixture.headers, authorization: `Bearer ${key}`, "content-type": "application/json" },
    body,
  });
  return { status: response.status, text: await response.text() };
}

async function sealedCompaction(): Promise<string> {
  const compacted = await client.responses.compact({ model: "claude-test", input: [{ role: "user", content: "Add a retry to src/fetch.ts" }] });
  const item = compacted.output.at(-1) as { type: string; encrypted_content: string };
  assert.equal(item.type, "compaction");
  assert.match(item.encrypted_content, /^gwcompact1\./);
  return item.encrypted_content;
}

describe("Codex turns past 32 KB on /v1/responses", () => {
  test("relayed, the turn goes up as the client's bytes; translated for a chat-only model, it reaches the upstream whole", async () => {
    const text = escaped(bigTurn("gpt-test"));
    assert.ok(text.length > 64 * 1024 && text.includes("\\u00fc"));
    const relayed = await post(text);
    assert.equal(relayed.status, 200, relayed.text);
    assert.match(relayed.text, /response\.completed/);
    const sent = fakes.openai.received.at(-1)!;
    assert.equal(sent.path, "/v1/responses");
    assert.equal(sent.raw, text);

    const translated = await post(escaped(bigTurn("chat-only-test")));
    assert.equal(translated.status, 200, translated.text);
    const chat = fakes.openai.received.at(-1)!;
    assert.equal(chat.path, "/v1/chat/completions");
    const messages = (chat.body as { messages: { role: string; tool_call_id?: string; content?: unknown }[] }).messages;
    const output = messages.find((message) => message.tool_call_id === "call_extra_3");
    assert.equal(output?.content, FILE);
  });

  for (const [model, upstream] of [
    ["chat-only-test", "openai"],
    ["claude-test", "anthropic"],
  ] as const) {
    test(`translated for ${model}, the turn's long text goes up as the client wrote it, in the body a whole parse gives`, async () => {
      const request = bigTurn(model);
      // A patch is a custom tool's input, which becomes the text of a JSON string of its own; reasoning is dropped.
      const patch = `*** Begin Patch\n*** Update File: a.ts\n${'+const a = "ü\\n";\n'.repeat(40)}*** End Patch`;
      request.input.splice(
        3,
        0,
        { type: "reasoning", summary: [], encrypted_content: "gAAAA".repeat(100) },
        { type: "custom_tool_call", name: "apply_patch", input: patch, call_id: "call_patch_big" },
        { type: "custom_tool_call_output", call_id: "call_patch_big", output: "Success. Updated a.ts" },
      );
      const text = escaped(request);
      const answer = await post(text);
      assert.equal(answer.status, 200, answer.text);
      const received = fakes[upstream].received.at(-1)!;
      assert.ok(received.raw.includes("\\u00fcnïcödé"), "the file reads went up as the client's bytes");
      const chat = toCanonical(parseResponsesBody(JSON.parse(text))).chat;
      const built = upstream === "openai" ? toOpenAIChatBody(chat, model, []) : toAnthropicBody(chat, model, (received.body as { max_tokens: number }).max_tokens, []);
      const { prompt_cache_key: _, ...body } = received.body as Record<string, unknown>;
      const { prompt_cache_key: __, ...expected } = JSON.parse(JSON.stringify(built)) as Record<string, unknown>;
      // The patch among them, as the whole parse writes it.
      assert.deepEqual(body, expected);
    });
  }

  test("a field the gateway reads is validated by it, in OpenAI's format, and nothing goes upstream", async () => {
    const before = fakes.openai.received.length;
    const answer = await post(JSON.stringify({ ...bigTurn("gpt-test"), max_output_tokens: "lots" }));
    assert.equal(answer.status, 400, answer.text);
    const error = JSON.parse(answer.text).error;
    assert.equal(error.type, "invalid_request_error");
    assert.equal(error.param, "max_output_tokens");
    assert.equal(fakes.openai.received.length, before);
  });

  test("an input item the schema refuses: translated, the gateway refuses it itself and nothing goes upstream", async () => {
    const broken = bigTurn("chat-only-test");
    broken.input[4] = { type: "function_call", name: "exec_command", arguments: 42 };
    const before = fakes.openai.received.length;
    const answer = await post(JSON.stringify(broken));
    assert.equal(answer.status, 400, answer.text);
    const error = JSON.parse(answer.text).error;
    assert.equal(error.type, "invalid_request_error");
    assert.match(String(error.param), /^input/);
    assert.equal(fakes.openai.received.length, before);
  });

  test("the gateway's own compaction item is opened before the relay: OpenAI gets the summary, never the seal; OpenAI's own item goes up as sent", async () => {
    const sealed = await sealedCompaction();
    const answer = await post(JSON.stringify(bigTurn("gpt-test", { type: "compaction", encrypted_content: sealed }, { role: "user", content: "Go on" })));
    assert.equal(answer.status, 200, answer.text);
    const opened = () => {
      const sent = fakes.openai.received.at(-1)!;
      assert.ok(!sent.raw.includes("gwcompact1."), "the seal never leaves the gateway");
      const input = (sent.body as { input: { type?: string; role?: string; content?: unknown }[] }).input;
      assert.ok(!input.some((item) => item.type === "compaction"));
      assert.ok(input.some((item) => item.role === "developer" && String(item.content).includes("This is a summary of it")));
    };
    opened();

    // Written with its keys in another order, or its prefix escaped, it is still found.
    const reordered = `{"encrypted_content":${JSON.stringify(sealed)},"type":"compaction"}`;
    const spelled = `{"type":"compaction","encrypted_content":${JSON.stringify(sealed).replace("gwc", "\\u0067wc")}}`;
    for (const item of [reordered, spelled]) {
      const body = JSON.stringify(bigTurn("gpt-test", { marker: true })).replace('{"marker":true}', item);
      const again = await post(body);
      assert.equal(again.status, 200, again.text);
      opened();
    }

    const native = JSON.stringify(bigTurn("gpt-test", { type: "compaction", encrypted_content: OPENAI_COMPACTION_BLOB }, { role: "user", content: "Go on" }));
    const relayed = await post(native);
    assert.equal(relayed.status, 200, relayed.text);
    assert.equal(fakes.openai.received.at(-1)!.raw, native);
  });

  test("stored (store: true), a relayed turn with OpenAI's own compaction item is kept, streamed or not, and lists its input", async () => {
    for (const stream of [false, true]) {
      const request: Record<string, any> = {
        ...bigTurn("gpt-test", { type: "compaction", encrypted_content: OPENAI_COMPACTION_BLOB }, { role: "user", content: "Go on" }),
        store: true,
        stream,
      };
      const answer = await post(JSON.stringify(request));
      assert.equal(answer.status, 200, answer.text);
      const id = stream ? /"type":"response\.completed".*?"id":"(resp_[^"]+)"/.exec(answer.text)?.[1] : JSON.parse(answer.text).id;
      assert.ok(id, answer.text.slice(-400));
      const listed = await fetch(`${gateway.url}/v1/responses/${id}/input_items`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(listed.status, 200);
      const items = (await listed.json()).data as { type?: string }[];
      assert.equal(items.length, request.input.length);
      assert.equal(items.at(-2)?.type, "compaction");
    }
  });

  test("a compaction trigger at the end is the gateway's to answer when translated, however its type is written", async () => {
    for (const trigger of ['{"type":"compaction_trigger"}', '{"type":"compaction\\u005ftrigger"}', '{ "type" : "compaction_trigger" }']) {
      const body = JSON.stringify(bigTurn("claude-test", { marker: true })).replace('{"marker":true}', trigger);
      const answer = await post(body.replace('"stream":true', '"stream":false'));
      assert.equal(answer.status, 200, answer.text);
      const output = JSON.parse(answer.text).output as { type: string; encrypted_content?: string }[];
      assert.deepEqual(
        output.map((item) => item.type),
        ["compaction"],
        trigger,
      );
      assert.match(output[0]!.encrypted_content!, /^gwcompact1\./);
    }
  });
});
