import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { startGateway, type Gateway } from "../helpers/start-gateway";
import { addVendorChannels, closeVendorFakes, startVendorFakes, type VendorFakes } from "../helpers/vendor-fakes";

// Codex's own traffic: a mid-session /v1/responses turn (encrypted reasoning replayed,
// shell calls, a freeform apply_patch call, store: false), through an upstream serving
// /responses and translated for the three kinds that do not.

const fixture = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, "..", "fixtures", "coding-agents", "codex-turn.json"), "utf8")) as {
  headers: Record<string, string>;
  request: Record<string, any>;
};
const CALLS = 5;

let gateway: Gateway;
let key: string;
let fakes: VendorFakes;

before(async () => {
  fakes = await startVendorFakes();
  gateway = await startGateway();
  await addVendorChannels(gateway, fakes, { openai: ["gpt-test", "chat-only-test"], anthropic: ["claude-test"], gemini: ["gemini-test"] });
  key = (await gateway.admin("POST", "/api/admin/tokens", { name: "codex" })).body.key;
});

after(async () => {
  await gateway?.stop();
  await closeVendorFakes(fakes);
});

const client = () => new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0, defaultHeaders: fixture.headers });

/** The streamed turn as the SDK reads it: its event types and the completed response. */
async function streamTurn(model: string) {
  const stream = await client().responses.create({ ...fixture.request, model } as OpenAI.Responses.ResponseCreateParamsStreaming);
  const types: string[] = [];
  let completed: OpenAI.Responses.Response | undefined;
  for await (const event of stream) {
    types.push(event.type);
    if (event.type === "response.completed") completed = event.response;
  }
  return { types, completed };
}

describe("Codex's requests", () => {
  test("to an upstream serving /responses: the turn goes up as sent and its stream comes back", async () => {
    const { types, completed } = await streamTurn("gpt-test");
    assert.equal(types[0], "response.created");
    assert.equal(types.at(-1), "response.completed");
    assert.equal(completed?.status, "completed");
    const sent = fakes.openai.received.at(-1)!;
    assert.equal(sent.path, "/v1/responses");
    assert.equal(sent.raw, JSON.stringify(fixture.request), "Codex's own bytes");
    // store: false keeps nothing at the gateway either.
    assert.equal((await fetch(`${gateway.url}/v1/responses/${completed!.id}`, { headers: { authorization: `Bearer ${key}` } })).status, 404);
  });

  test("translated for a chat-only server, Anthropic and Gemini: every call paired with its output, refused by no fake", async () => {
    for (const model of ["chat-only-test", "claude-test", "gemini-test"]) {
      const { types, completed } = await streamTurn(model);
      assert.equal(types.at(-1), "response.completed", model);
      assert.equal(completed?.status, "completed", model);
      const message = completed!.output.find((item) => item.type === "message") as OpenAI.Responses.ResponseOutputMessage | undefined;
      assert.match((message?.content[0] as OpenAI.Responses.ResponseOutputText | undefined)?.text ?? "", /Go ahead and run them/, model);
    }
    assert.deepEqual(fakes.openai.rejected, []);
    assert.deepEqual(fakes.anthropic.rejected, []);
    assert.deepEqual(fakes.gemini.rejected, []);

    const chat = fakes.openai.received.findLast((request) => request.path === "/v1/chat/completions")!.body as Record<string, any>;
    assert.equal(chat.messages.flatMap((message: any) => message.tool_calls ?? []).length, CALLS);
    assert.equal(chat.messages.filter((message: any) => message.role === "tool").length, CALLS);
    assert.deepEqual(
      chat.tools.map((tool: any) => tool.function.name),
      fixture.request.tools.map((tool: any) => tool.name),
    );

    const anthropic = fakes.anthropic.received.at(-1)!.body as Record<string, any>;
    const blocks = anthropic.messages.flatMap((message: any) => (Array.isArray(message.content) ? message.content : []));
    assert.equal(blocks.filter((block: any) => block.type === "tool_use").length, CALLS);
    assert.equal(blocks.filter((block: any) => block.type === "tool_result").length, CALLS);
    assert.match(JSON.stringify(anthropic.system), /coding agent running in a terminal/);

    const gemini = fakes.gemini.received.at(-1)!.body as Record<string, any>;
    const parts = gemini.contents.flatMap((content: any) => content.parts);
    assert.equal(parts.filter((part: any) => part.functionCall).length, CALLS);
    assert.equal(parts.filter((part: any) => part.functionResponse).length, CALLS);
  });
});
