import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import { ANTHROPIC_KEY } from "../helpers/fake-anthropic-upstream";
import { eventually } from "../helpers/eventually";
import { startGateway, type Gateway } from "../helpers/start-gateway";
import { addVendorChannels, closeVendorFakes, startVendorFakes, type VendorFakes } from "../helpers/vendor-fakes";

// Claude Code's own traffic, at its real size and shape: a mid-session turn (tools, cache
// breakpoints, replayed signed and redacted thinking, parallel calls, errors, a
// screenshot) sent the way it sends it, to /v1/messages?beta=true with its betas.

const fixture = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, "..", "fixtures", "coding-agents", "claude-code-turn.json"), "utf8")) as {
  headers: Record<string, string>;
  request: Record<string, any>;
};

let gateway: Gateway;
let key: string;
let fakes: VendorFakes;

before(async () => {
  fakes = await startVendorFakes();
  gateway = await startGateway();
  await addVendorChannels(gateway, fakes, { openai: ["gpt-test"], anthropic: ["claude-test"], gemini: ["gemini-test", "gemini-3-test"] });
  key = (await gateway.admin("POST", "/api/admin/tokens", { name: "claude-code" })).body.key;
});

after(async () => {
  await gateway?.stop();
  await closeVendorFakes(fakes);
});

const client = () => new Anthropic({ apiKey: key, baseURL: gateway.url, maxRetries: 0, defaultHeaders: fixture.headers });

async function logRow(requestId: string | null) {
  let row: any;
  await eventually(async () => {
    const rows = (await gateway.admin("GET", "/api/admin/logs?limit=20")).body.data as any[];
    row = rows.find((entry) => entry.id === requestId);
    assert.ok(row, `no log row for ${requestId}`);
  });
  return row;
}

describe("Claude Code's requests", () => {
  test("to an Anthropic channel: the body goes up byte for byte with the betas, the stream comes back whole, cache use is logged", async () => {
    const body = JSON.stringify(fixture.request);
    const response = await fetch(`${gateway.url}/v1/messages?beta=true`, {
      method: "POST",
      headers: { ...fixture.headers, "x-api-key": key, "content-type": "application/json" },
      body,
    });
    const text = await response.text();
    assert.equal(response.status, 200, text);
    const received = fakes.anthropic.received.at(-1)!;
    assert.equal(received.raw, body, "the client's own bytes");
    assert.equal(received.headers["anthropic-beta"], fixture.headers["anthropic-beta"]);
    assert.equal(received.headers["x-api-key"], ANTHROPIC_KEY);
    assert.deepEqual(fakes.anthropic.rejected, []);
    const events = [...text.matchAll(/^event: (\w+)$/gm)].map((match) => match[1]);
    assert.equal(events[0], "message_start");
    assert.equal(events.at(-1), "message_stop");
    assert.match(text, /"text":"tests\."/, "the reply echoes the last user text");
    const row = await logRow(response.headers.get("x-request-id"));
    assert.equal(row.status, 200);
    assert.equal(row.cachedTokens, 5);
    assert.ok(row.completionTokens > 0);
  });

  test("through the SDK's beta client to OpenAI and Gemini channels: translated, refused by neither fake, streamed back as Anthropic events", async () => {
    // Gemini 3 refuses replayed calls without thought signatures; Claude's history has none of its own.
    for (const model of ["gpt-test", "gemini-3-test", "gemini-test"]) {
      const stream = client().beta.messages.stream({ ...fixture.request, model } as Anthropic.Beta.MessageCreateParamsStreaming);
      const message = await stream.finalMessage();
      assert.equal(message.stop_reason, "end_turn", model);
      assert.equal(message.content[0]?.type, "text", model);
      assert.match((message.content[0] as Anthropic.Beta.BetaTextBlock).text, /Now run the tests/, model);
    }
    assert.deepEqual(fakes.openai.rejected, []);
    assert.deepEqual(fakes.gemini.rejected, []);

    const openai = fakes.openai.received.at(-1)!.body as Record<string, any>;
    assert.equal(openai.tools.length, fixture.request.tools.length);
    const calls = openai.messages.filter((message: any) => message.role === "assistant").flatMap((message: any) => message.tool_calls ?? []);
    assert.equal(calls.length, 8, "every tool call, the parallel pair included");
    const errorResult = openai.messages.find((message: any) => message.role === "tool" && String(message.content).includes("File does not exist"));
    assert.ok(errorResult, "the failed tool result arrives");
    const image = openai.messages.flatMap((message: any) => (Array.isArray(message.content) ? message.content : [])).find((part: any) => part.type === "image_url");
    assert.match(image.image_url.url, /^data:image\/png;base64,iVBOR/);

    const gemini = fakes.gemini.received.at(-1)!.body as Record<string, any>;
    assert.equal(gemini.tools[0].functionDeclarations.length, fixture.request.tools.length);
    const parts = gemini.contents.flatMap((content: any) => content.parts);
    assert.equal(parts.filter((part: any) => part.functionCall).length, 8);
    assert.equal(parts.filter((part: any) => part.functionResponse).length, 8);
  });

  test("max_tokens 0 pre-warms an Anthropic channel's cache; elsewhere the gateway gives the same empty reply without calling the upstream", async () => {
    const request = { max_tokens: 0, system: fixture.request.system, messages: [{ role: "user" as const, content: "warm up" }] };
    const warmed = await client().messages.create({ ...request, model: "claude-test" });
    assert.equal(warmed.stop_reason, "max_tokens");
    assert.deepEqual(warmed.content, []);
    assert.equal(warmed.usage.cache_creation_input_tokens, 1200);
    assert.equal(fakes.anthropic.received.at(-1)!.body.max_tokens, 0);

    const calls = fakes.openai.received.length;
    for (const stream of [false, true]) {
      const reply = stream
        ? await client()
            .messages.stream({ ...request, model: "gpt-test" })
            .finalMessage()
        : await client().messages.create({ ...request, model: "gpt-test" });
      assert.equal(reply.stop_reason, "max_tokens");
      assert.deepEqual(reply.content, []);
      assert.equal(reply.usage.output_tokens, 0);
    }
    assert.equal(fakes.openai.received.length, calls, "no upstream call");
  });
});
