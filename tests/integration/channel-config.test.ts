import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { eventually } from "../helpers/eventually";
import { startFakeOpenAIUpstream, UPSTREAM_API_KEY, type FakeUpstream } from "../helpers/fake-openai-upstream";
import { startGateway, type Gateway } from "../helpers/start-gateway";

// The first mistake of anyone coming from another gateway: a base URL without its
// version segment. The upstream's 404 is the channel's fault, said as such, never the caller's.

let gateway: Gateway;
let upstream: FakeUpstream;
let client: OpenAI;

before(async () => {
  upstream = await startFakeOpenAIUpstream();
  gateway = await startGateway({ ROUTING_BACKOFF_MS: "0" });
  client = new OpenAI({ apiKey: (await gateway.admin("POST", "/api/admin/tokens", { name: "config" })).body.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
});
after(async () => {
  await gateway?.stop();
  await upstream?.close();
});

/** The API error a chat with `model` ends in. */
function refusal(model: string): Promise<InstanceType<typeof OpenAI.APIError>> {
  return client.chat.completions.create({ model, messages: [{ role: "user", content: "hi" }] }).then(
    () => assert.fail("expected an error"),
    (error: unknown) => error as InstanceType<typeof OpenAI.APIError>,
  );
}

test("the start-up block is short: where the API and console are, the setup code and where it is kept, the admin key, how to stop", () => {
  const output = gateway.output();
  assert.match(output, /OpenAI SDK: +base URL http:\/\/localhost:\d+\/v1\n/);
  assert.match(output, /Console: +http:\/\/localhost:\d+\/console: waiting for setup/);
  const code = /Setup code: +([A-Z2-9]{4}(?:-[A-Z2-9]{4}){3}) \(also in (\S+)\)/.exec(output);
  assert.ok(code, output);
  assert.equal(code[1], gateway.setupCode());
  // Every process and instance of the deployment (two on PostgreSQL) asks for the same code.
  assert.equal(new Set([...output.matchAll(/Setup code: +(\S+)/g)].map((match) => match[1])).size, 1);
  assert.match(code[2]!, /setup-code$/);
  assert.match(output, /Admin API key: (in .*admin-api-key|from ADMIN_API_KEY)/);
  assert.match(output, /Stop: +Ctrl-C, or one SIGTERM/);
  // (Two instances print a block each, one after the other.)
  const block = output.slice(output.indexOf("Gateway ready on")).split(/\n\n|\n(?=Gateway ready on)/)[0]!;
  assert.ok(block.split("\n").length <= 10, `one short block:\n${block}`);
});

describe("channel base URLs", () => {
  test("a pasted endpoint path and trailing slashes are dropped on save", async () => {
    const created = await gateway.admin("POST", "/api/admin/channels", {
      name: "pasted",
      type: "openai",
      baseUrl: `${upstream.baseUrl}/chat/completions/`,
      apiKey: UPSTREAM_API_KEY,
      models: ["pasted-model"],
      modelMap: { "pasted-model": "fake-upstream-model" },
    });
    assert.equal(created.status, 201);
    assert.equal(created.body.baseUrl, upstream.baseUrl);
    const reply = await client.chat.completions.create({ model: "pasted-model", messages: [{ role: "user", content: "hi" }] });
    assert.equal(reply.choices[0]!.message.content, "Echo: hi");
  });

  test("a base URL without /v1: the caller gets a 502 that blames the channel, and the channel shows why", async () => {
    const origin = upstream.baseUrl.replace(/\/v1$/, "");
    const created = await gateway.admin("POST", "/api/admin/channels", {
      name: "no version",
      type: "openai",
      baseUrl: origin,
      apiKey: UPSTREAM_API_KEY,
      models: ["unversioned-model"],
    });
    assert.equal(created.status, 201);
    const failure = await refusal("unversioned-model");
    assert.equal(failure.status, 502);
    assert.equal(failure.code, "upstream_misconfigured");
    assert.doesNotMatch(failure.message, /Invalid URL/, "the upstream's path complaint is not the caller's error");
    assert.ok(upstream.received.some((request) => request.path === "/chat/completions"));
    await eventually(async () => {
      const channel = (await gateway.admin("GET", `/api/admin/channels/${created.body.id}`)).body;
      // Real traffic probes nothing else, so it names no other URL: the channel's check does that.
      assert.match(channel.lastError, new RegExp(`no such endpoint under ${origin.replace(/[.]/g, "\\.")} .*check the channel's base URL`));
      assert.doesNotMatch(channel.lastError, /did you mean/);
    }, 8000);
  });

  test("a base URL that is not http or https says so", async () => {
    for (const [baseUrl, message] of [
      ["ftp://files.example.com/v1", /'baseUrl': ftp:\/\/ is not supported: http or https only\.$/],
      ["api.example.com/v1", /'baseUrl': Not a URL/],
    ] as const) {
      const refused = await gateway.admin("POST", "/api/admin/channels", { name: "ftp", type: "openai", baseUrl, apiKey: UPSTREAM_API_KEY, models: ["ftp-model"] });
      assert.equal(refused.status, 400);
      assert.match(refused.body.error.message, message);
    }
  });

  test("a 404 that names the model is that model's: 503 model_unavailable for the caller, the channel rests for it alone", async () => {
    const created = await gateway.admin("POST", "/api/admin/channels", {
      name: "missing model",
      type: "openai",
      baseUrl: upstream.baseUrl,
      apiKey: UPSTREAM_API_KEY,
      models: ["fake-missing"],
    });
    assert.equal(created.status, 201);
    const failure = await refusal("fake-missing");
    // The gateway lists the model, so it exists for the caller: it cannot be served right now.
    assert.equal(failure.status, 503);
    assert.equal(failure.code, "model_unavailable");
    assert.ok(Number(failure.headers?.get("retry-after")) >= 1);
    // Every process hears of the rest (a broadcast, with two).
    await eventually(async () => {
      const channel = (await gateway.admin("GET", `/api/admin/channels/${created.body.id}`)).body;
      assert.equal(channel.autoDisabledReason, null, "a missing model is not the channel's base URL or key");
      assert.ok(channel.state.models["fake-missing"]?.coolDownUntil, "the channel rests for that model");
    });
  });
});
