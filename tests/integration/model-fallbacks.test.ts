import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ANTHROPIC_KEY } from "../helpers/fake-anthropic-upstream";
import { GEMINI_KEY } from "../helpers/fake-gemini-upstream";
import { UPSTREAM_API_KEY } from "../helpers/fake-openai-upstream";
import { anthropicFacade, geminiFacade, openAIFacade, type ClientFacade } from "../helpers/sdk-clients";
import { startGateway, type Gateway } from "../helpers/start-gateway";
import { closeVendorFakes, startVendorFakes, type VendorFakes } from "../helpers/vendor-fakes";

// Models as routes: a model that cannot serve falls back to the next model of its record,
// through every official SDK, streamed and not, and the one log row says what happened.

let gateway: Gateway;
let fakes: VendorFakes;
let key: string;
let clients: ClientFacade[];

const VENDORS = ["openai", "anthropic", "gemini"] as const;
const BROKEN = { openai: "gpt-broken", anthropic: "claude-broken", gemini: "gemini-broken" } as const;
const BACKUP = { openai: "gpt-backup", anthropic: "claude-backup", gemini: "gemini-backup" } as const;

interface LogRow {
  id: string;
  model: string | null;
  servedModel: string | null;
  upstreamModel: string | null;
  status: number;
  stream: boolean;
  warnings: string[] | null;
  attempts: { model: string; channelName: string; status: number }[] | null;
}

async function logRows(): Promise<LogRow[]> {
  // Rows are written in batches: wait until the newest request has one.
  await new Promise((resolve) => setTimeout(resolve, 150));
  return (await gateway.admin<{ data: LogRow[] }>("GET", "/api/admin/logs?limit=500")).body.data;
}

async function model(name: string, fields: Record<string, unknown>) {
  const created = await gateway.admin("POST", "/api/admin/models", { name, ...fields });
  assert.equal(created.status, 201, JSON.stringify(created.body));
}

before(async () => {
  fakes = await startVendorFakes();
  // Circuits never open here: every request meets the failing channel itself.
  gateway = await startGateway({ CIRCUIT_CONSECUTIVE_FAILURES: "100000", CIRCUIT_MIN_REQUESTS: "100000" });
  const channels = [
    {
      name: "openai-broken",
      type: "openai",
      baseUrl: fakes.openai.baseUrl,
      apiKey: UPSTREAM_API_KEY,
      models: ["gpt-broken", "gpt-broken-2", "gpt-broken-3"],
      modelMap: { "gpt-broken": "fake-server-error", "gpt-broken-2": "fake-server-error", "gpt-broken-3": "fake-server-error" },
    },
    {
      name: "openai",
      type: "openai",
      baseUrl: fakes.openai.baseUrl,
      apiKey: UPSTREAM_API_KEY,
      models: ["gpt-backup", "gpt-small", "gpt-small-twin"],
      modelMap: { "gpt-small": "fake-small-context", "gpt-small-twin": "fake-small-context" },
    },
    {
      name: "anthropic",
      type: "anthropic",
      baseUrl: fakes.anthropic.baseUrl,
      apiKey: ANTHROPIC_KEY,
      models: ["claude-broken", "claude-backup", "claude-small", "claude-large"],
      modelMap: { "claude-broken": "claude-server-error", "claude-small": "claude-small-context" },
    },
    {
      name: "gemini",
      type: "gemini",
      baseUrl: fakes.gemini.baseUrl,
      apiKey: GEMINI_KEY,
      models: ["gemini-broken", "gemini-backup", "gemini-small", "gemini-large"],
      modelMap: { "gemini-broken": "gemini-server-error", "gemini-small": "gemini-small-context" },
    },
  ];
  for (const channel of channels) assert.equal((await gateway.admin("POST", "/api/admin/channels", channel)).status, 201);
  for (const vendor of VENDORS) await model(BROKEN[vendor], { fallbacks: [BACKUP[vendor]] });
  await model("gpt-broken-2", { fallbacks: ["gpt-broken-3", "gpt-broken", "gpt-backup"] });
  await model("gpt-small", { contextWindow: 8192, fallbacks: ["gpt-small-twin", "claude-large"] });
  await model("gpt-small-twin", { contextWindow: 8192 });
  await model("claude-large", { contextWindow: 200_000 });
  await model("claude-small", { contextWindow: 200_000, fallbacks: ["gemini-large"] });
  await model("gemini-large", { contextWindow: 1_048_576 });
  await model("gemini-small", { contextWindow: 1_048_576, fallbacks: ["gpt-backup"] });
  key = (await gateway.admin("POST", "/api/admin/tokens", { name: "fallbacks" })).body.key;
  clients = [openAIFacade(gateway.url, key), anthropicFacade(gateway.url, key), geminiFacade(gateway.url, key)];
});

after(async () => {
  await gateway?.stop();
  await closeVendorFakes(fakes);
});

describe("a model whose only channel answers 500 falls back to its fallback model", () => {
  for (const vendor of VENDORS) {
    for (const stream of [false, true]) {
      test(`${vendor} SDK, ${stream ? "streamed" : "not streamed"}`, async () => {
        const client = clients.find((candidate) => candidate.name === vendor)!;
        const prompt = `fallback ${vendor} ${stream}`;
        const answer = await client.ask(BROKEN[vendor], prompt, { stream, maxTokens: 64 });
        assert.match(answer.text, new RegExp(`Echo: ${prompt}`));
        assert.equal(answer.model, BACKUP[vendor], "the answer names the model that served it");
        const row = (await logRows()).find((entry) => entry.model === BROKEN[vendor] && entry.stream === stream && entry.servedModel !== null);
        assert.ok(row, "one log row for the request");
        assert.equal(row.status, 200);
        assert.equal(row.servedModel, BACKUP[vendor]);
        assert.deepEqual(
          row.attempts?.map((attempt) => [attempt.model, attempt.status]),
          [
            [BROKEN[vendor], 500],
            [BACKUP[vendor], 200],
          ],
        );
      });
    }
  }
});

describe("the fallback is said in a response header", () => {
  const requests = {
    openai: (stream: boolean) => ({
      path: "/v1/chat/completions",
      headers: { authorization: `Bearer ${key}` },
      body: { model: "gpt-broken", stream, messages: [{ role: "user", content: "hi" }] },
    }),
    anthropic: (stream: boolean) => ({
      path: "/v1/messages",
      headers: { "x-api-key": key, "anthropic-version": "2023-06-01" },
      body: { model: "claude-broken", stream, max_tokens: 32, messages: [{ role: "user", content: "hi" }] },
    }),
    gemini: (stream: boolean) => ({
      path: `/v1beta/models/gemini-broken:${stream ? "streamGenerateContent?alt=sse" : "generateContent"}`,
      headers: { "x-goog-api-key": key },
      body: { contents: [{ role: "user", parts: [{ text: "hi" }] }] },
    }),
  };
  for (const vendor of VENDORS) {
    for (const stream of [false, true]) {
      test(`${vendor}, ${stream ? "streamed" : "not streamed"}: x-gateway-fallback-from names the requested model`, async () => {
        const request = requests[vendor](stream);
        const response = await fetch(`${gateway.url}${request.path}`, {
          method: "POST",
          headers: { "content-type": "application/json", ...request.headers },
          body: JSON.stringify(request.body),
        });
        const text = await response.text();
        assert.equal(response.status, 200, text);
        assert.equal(response.headers.get("x-gateway-fallback-from"), BROKEN[vendor]);
        assert.ok(text.includes(BACKUP[vendor]), "the body names the served model");
        assert.ok(!text.includes(BROKEN[vendor]), "and not the requested one");
      });
    }
  }

  test("an answer the requested model served has no such header", async () => {
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: "gpt-backup", messages: [{ role: "user", content: "hi" }] }),
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("x-gateway-fallback-from"), null);
  });
});

describe("a context-length refusal falls back to a model with a larger window", () => {
  test("OpenAI's context_length_exceeded: the fallback with the same window is skipped, the larger one serves (OpenAI SDK to an Anthropic channel)", async () => {
    const answer = await clients[0]!.ask("gpt-small", "a very long prompt", { stream: false, maxTokens: 64 });
    assert.match(answer.text, /Echo: a very long prompt/);
    assert.equal(answer.model, "claude-large");
    const row = (await logRows()).find((entry) => entry.model === "gpt-small");
    assert.equal(row?.servedModel, "claude-large");
    assert.deepEqual(
      row?.attempts?.map((attempt) => [attempt.model, attempt.status]),
      [
        ["gpt-small", 400],
        ["claude-large", 200],
      ],
    );
    assert.ok(
      row?.warnings?.some((warning) => warning.includes("gpt-small-twin") && warning.includes("context window")),
      JSON.stringify(row?.warnings),
    );
  });

  test("Anthropic's 'prompt is too long' (Anthropic SDK, streamed, to a Gemini channel)", async () => {
    const answer = await clients[1]!.ask("claude-small", "a very long prompt", { stream: true, maxTokens: 64 });
    assert.match(answer.text, /Echo: a very long prompt|a very long prompt/);
    assert.equal(answer.model, "gemini-large");
    const row = (await logRows()).find((entry) => entry.model === "claude-small");
    assert.equal(row?.servedModel, "gemini-large");
    assert.deepEqual(
      row?.attempts?.map((attempt) => attempt.status),
      [400, 200],
    );
  });

  test("Gemini's token-limit 400 (Gemini SDK, to an OpenAI channel whose window is unknown)", async () => {
    const answer = await clients[2]!.ask("gemini-small", "a very long prompt", { stream: false, maxTokens: 64 });
    assert.match(answer.text, /Echo: a very long prompt/);
    assert.equal(answer.model, "gpt-backup");
    const row = (await logRows()).find((entry) => entry.model === "gemini-small");
    assert.equal(row?.servedModel, "gpt-backup");
  });

  test("without a record, a context-length refusal is the caller's 400 as before", async () => {
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: "gpt-small-twin", messages: [{ role: "user", content: "hi" }] }),
    });
    const body = await response.json();
    assert.equal(response.status, 400);
    assert.equal(body.error.code, "context_length_exceeded");
  });
});

describe("fallbacks keep to the request's limits", () => {
  test("the attempt budget (ROUTING_MAX_ATTEMPTS, 3) is shared: a fourth model is never tried", async () => {
    const before = fakes.openai.received.filter((request) => request.body.model === "gpt-backup").length;
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: "gpt-broken-2", messages: [{ role: "user", content: "budget" }] }),
    });
    assert.equal(response.status, 500, await response.text());
    assert.equal(fakes.openai.received.filter((request) => request.body.model === "gpt-backup").length, before);
    const row = (await logRows()).find((entry) => entry.model === "gpt-broken-2");
    assert.deepEqual(
      row?.attempts?.map((attempt) => attempt.model),
      ["gpt-broken-2", "gpt-broken-3", "gpt-broken"],
    );
    assert.equal(row?.servedModel, null);
  });

  test("a token's model allowlist applies: a fallback it may not use is skipped, not served", async () => {
    const limited = (await gateway.admin("POST", "/api/admin/tokens", { name: "limited", models: ["gpt-broken"] })).body.key;
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${limited}`, "x-request-id": "allowlist-check" },
      body: JSON.stringify({ model: "gpt-broken", messages: [{ role: "user", content: "allowlist" }] }),
    });
    assert.equal(response.status, 500, "the requested model's failure, not the fallback's answer");
    assert.equal(response.headers.get("x-gateway-fallback-from"), null);
    const rows = await logRows();
    const row = rows.find((entry) => entry.model === "gpt-broken" && entry.status === 500);
    assert.deepEqual(
      row?.attempts?.map((attempt) => attempt.model),
      ["gpt-broken"],
    );
    assert.ok(
      row?.warnings?.some((warning) => warning.includes("gpt-backup") && warning.includes("may not use")),
      JSON.stringify(row?.warnings),
    );
  });
});

describe("the models admin API", () => {
  test("lists every served name with its channels, records or not", async () => {
    const listed = await gateway.admin<{
      data: { id: string | null; name: string; strategy: string; fallbacks: string[]; channels: { name: string; upstreamModel: string | null }[] }[];
    }>("GET", "/api/admin/models");
    assert.equal(listed.status, 200);
    const backup = listed.body.data.find((entry) => entry.name === "gpt-backup");
    assert.deepEqual([backup?.id, backup?.strategy, backup?.channels.map((channel) => channel.name)], [null, "weighted", ["openai"]]);
    const broken = listed.body.data.find((entry) => entry.name === "gpt-broken");
    assert.ok(broken?.id);
    assert.deepEqual(broken.fallbacks, ["gpt-backup"]);
    assert.equal(broken.channels[0]?.upstreamModel, "fake-server-error");
  });

  test("refuses what cannot route: a second record, an unknown strategy, a model as its own fallback", async () => {
    const duplicate = await gateway.admin("POST", "/api/admin/models", { name: "gpt-broken" });
    assert.equal(duplicate.status, 409);
    assert.equal(duplicate.body.error.code, "model_exists");
    const strategy = await gateway.admin("POST", "/api/admin/models", { name: "new-model", strategy: "fastest" });
    assert.equal(strategy.status, 400);
    assert.match(JSON.stringify(strategy.body), /strategy/);
    const itself = await gateway.admin("POST", "/api/admin/models", { name: "new-model", fallbacks: ["new-model"] });
    assert.equal(itself.status, 400);
    assert.equal(itself.body.error.code, "invalid_fallbacks");
    assert.equal((await gateway.admin("GET", "/api/admin/models/no-such-id")).status, 404);
  });

  test("PATCH changes the route at once; DELETE makes the name a plain model again", async () => {
    const id = (await gateway.admin<{ data: { id: string | null; name: string }[] }>("GET", "/api/admin/models")).body.data.find((entry) => entry.name === "claude-broken")!.id!;
    const patched = await gateway.admin("PATCH", `/api/admin/models/${id}`, { fallbacks: ["gemini-backup"], strategy: "cost" });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.deepEqual([patched.body.fallbacks, patched.body.strategy], [["gemini-backup"], "cost"]);
    assert.equal((await clients[1]!.ask("claude-broken", "patched", { stream: false, maxTokens: 32 })).model, "gemini-backup");
    assert.equal((await gateway.admin("DELETE", `/api/admin/models/${id}`)).status, 200);
    await assert.rejects(clients[1]!.ask("claude-broken", "deleted", { stream: false, maxTokens: 32 }), (error: { status?: number }) => error.status === 500);
  });
});
