import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { startGateway, type Gateway } from "../helpers/start-gateway";
import { addVendorChannels, closeVendorFakes, startVendorFakes, type VendorFakes } from "../helpers/vendor-fakes";

// The first turn of each current agent release, as recorded (tests/agents/record-fixtures.ts),
// replayed to every kind of upstream: each must be served, and no fake may find the
// request the gateway made of it invalid for its vendor. `npm run test:agents` runs the
// agents themselves.

interface Fixture {
  agent: string;
  version: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Record<string, any>;
}

const load = (name: string): Fixture => JSON.parse(fs.readFileSync(path.join(import.meta.dirname, "..", "fixtures", "agents", `${name}.json`), "utf8"));
const MODELS = ["gpt-test", "chat-only-test", "claude-test", "gemini-test"];

let gateway: Gateway;
let fakes: VendorFakes;
let key: string;

before(async () => {
  fakes = await startVendorFakes();
  gateway = await startGateway();
  await addVendorChannels(gateway, fakes, { openai: ["gpt-test", "chat-only-test"], anthropic: ["claude-test"], gemini: ["gemini-test"] });
  key = (await gateway.admin("POST", "/api/admin/tokens", { name: "agents" })).body.key;
});

after(async () => {
  await gateway?.stop();
  await closeVendorFakes(fakes);
});

/** The recorded request with another model, sent with the platform key where the agent put its own. */
async function replay(fixture: Fixture, model: string): Promise<{ status: number; text: string }> {
  const headers = { ...fixture.headers };
  let url = fixture.path;
  const body = { ...fixture.body };
  if (url.startsWith("/v1beta/models/")) url = url.replace(/models\/[^:]+:/, `models/${model}:`);
  else body.model = model;
  if (url.startsWith("/v1/messages")) headers["x-api-key"] = key;
  else if (url.startsWith("/v1beta")) headers["x-goog-api-key"] = key;
  else headers.authorization = `Bearer ${key}`;
  const response = await fetch(`${gateway.url}${url}`, { method: fixture.method, headers, body: JSON.stringify(body), signal: AbortSignal.timeout(30_000) });
  return { status: response.status, text: await response.text() };
}

// What ends each agent's stream well, and what would mean it failed.
const ENDINGS: Record<string, { done: RegExp; failed: RegExp }> = {
  codex: { done: /event: response\.completed/, failed: /event: (response\.failed|error)\b/ },
  claude: { done: /event: message_stop/, failed: /event: error/ },
  gemini: { done: /"finishReason"/, failed: /"error"/ },
  opencode: { done: /data: \[DONE\]/, failed: /"error"/ },
};

describe("each agent's recorded first turn, on every kind of upstream", () => {
  for (const name of Object.keys(ENDINGS)) {
    test(`${name}: served whole and valid for every vendor`, async () => {
      const fixture = load(name);
      for (const model of MODELS) {
        const { status, text } = await replay(fixture, model);
        assert.equal(status, 200, `${name} on ${model}: ${text.slice(0, 300)}`);
        assert.match(text, ENDINGS[name]!.done, `${name} on ${model}`);
        assert.doesNotMatch(text, ENDINGS[name]!.failed, `${name} on ${model}: ${text.slice(0, 300)}`);
      }
      assert.deepEqual(fakes.openai.rejected, []);
      assert.deepEqual(fakes.anthropic.rejected, []);
      assert.deepEqual(fakes.gemini.rejected, []);
    });
  }

  test("Codex's namespace tools reach translated upstreams as flat functions and its web search as the vendor's own", async () => {
    const fixture = load("codex");
    assert.ok(
      fixture.body.tools.some((tool: any) => tool.type === "namespace"),
      "the recording declares a namespace",
    );
    await replay(fixture, "claude-test");
    const anthropic = fakes.anthropic.received.at(-1)!.body;
    assert.ok(anthropic.tools.some((tool: any) => tool.name === "multi_agent_v1__spawn_agent"));
    assert.ok(anthropic.tools.some((tool: any) => tool.type === "web_search_20250305"));
    await replay(fixture, "chat-only-test");
    const chat = fakes.openai.received.findLast((request) => request.path === "/v1/chat/completions")!.body as any;
    assert.ok(chat.tools.every((tool: any) => tool.type === "function"));
    assert.equal(chat.client_metadata, undefined);
  });
});
