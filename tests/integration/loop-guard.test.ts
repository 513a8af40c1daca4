import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { eventually } from "../helpers/eventually";
import { startFakeOpenAIUpstream, UPSTREAM_API_KEY, type FakeUpstream } from "../helpers/fake-openai-upstream";
import { startGateway, type Gateway } from "../helpers/start-gateway";

// A channel that leads back to the gateway, or two gateways that route to each other,
// must not multiply a request: the hop header stops it after at most the hop limit of
// upstream calls, and a channel pointing at its own gateway is never saved.

let first: Gateway;
let second: Gateway;
let fake: FakeUpstream;
const keys: Record<string, string> = {};

type LogRow = { model: string; status: number; endpoint: string; errorMessage?: string | null };
const rows = async (gateway: Gateway) => (await gateway.admin("GET", "/api/admin/logs?limit=200")).body.data as LogRow[];

before(async () => {
  fake = await startFakeOpenAIUpstream();
  [first, second] = await Promise.all([startGateway({ GATEWAY_DEPLOYMENT_ID: "firstgateway" }), startGateway({ GATEWAY_DEPLOYMENT_ID: "secondgateway" })]);
  for (const [name, gateway] of [
    ["first", first],
    ["second", second],
  ] as const) {
    const { body } = await gateway.admin("POST", "/api/admin/tokens", { name });
    keys[name] = body.key;
    gateway.secrets.add(body.key);
  }
});
after(async () => {
  await Promise.all([first?.stop(), second?.stop()]);
  await fake?.close();
});

describe("loop guard", () => {
  test("a channel whose base URL leads back to its own gateway is refused on save, through the admin API", async () => {
    const { status, body } = await first.admin("POST", "/api/admin/channels", {
      type: "openai",
      name: "self",
      baseUrl: `${first.url}/v1`,
      apiKey: keys.first,
      models: ["loop-self"],
    });
    assert.equal(status, 400);
    assert.match(JSON.stringify(body), /leads back to this gateway/);
    const gemini = await first.admin("POST", "/api/admin/channels", {
      type: "gemini",
      name: "self-gemini",
      baseUrl: `${first.url}/v1beta`,
      apiKey: keys.first,
      models: ["loop-gemini"],
    });
    assert.equal(gemini.status, 400, "whatever the channel type");
    const bare = await first.admin("POST", "/api/admin/channels", { type: "openai", name: "self-bare", baseUrl: first.url, apiKey: keys.first, models: ["loop-bare"] });
    assert.equal(bare.status, 400, "a base URL without its version segment too");
  });

  test("the check's own probes leave no request-log row, so the Dashboard counts no error for them", async () => {
    // A request after the refusals: once its row is written, any row the probes left would be too.
    const marker = await fetch(`${first.url}/v1/models`, { headers: { authorization: `Bearer ${keys.first}` } });
    assert.equal(marker.status, 200);
    const markerId = marker.headers.get("x-request-id");
    await eventually(async () => assert.ok((await first.admin("GET", "/api/admin/logs?limit=200")).body.data.some((row: { id: string }) => row.id === markerId)));
    const refused = (await rows(first)).filter((row) => row.status === 508);
    assert.deepEqual(refused, [], "no 508 rows from the loop checks");
    // A looping request that is not the gateway's own probe is still refused and logged.
    const forged = await fetch(`${first.url}/v1/models`, {
      headers: { authorization: `Bearer ${keys.first}`, "x-gateway-hops": "firstgateway", "x-gateway-loop-probe": "forged" },
    });
    assert.equal(forged.status, 508);
    await eventually(async () => assert.equal((await rows(first)).filter((row) => row.status === 508).length, 1));
  });

  test("two gateways routing to each other: 508 loop_detected after two upstream calls, not a storm", async () => {
    assert.equal(
      (await first.admin("POST", "/api/admin/channels", { type: "openai", name: "to-second", baseUrl: `${second.url}/v1`, apiKey: keys.second, models: ["ping-pong"] })).status,
      201,
    );
    assert.equal(
      (await second.admin("POST", "/api/admin/channels", { type: "openai", name: "to-first", baseUrl: `${first.url}/v1`, apiKey: keys.first, models: ["ping-pong"] })).status,
      201,
    );
    const client = new OpenAI({ apiKey: keys.first, baseURL: `${first.url}/v1`, maxRetries: 0 });
    await assert.rejects(client.chat.completions.create({ model: "ping-pong", messages: [{ role: "user", content: "hi" }] }), (error: unknown) => {
      const status = (error as { status?: number }).status;
      assert.equal(status, 508);
      assert.match(String((error as Error).message), /came back to the gateway/);
      return true;
    });
    // first -> second -> first (refused there): two rows on the first gateway, one on the second.
    await eventually(async () => {
      const onFirst = (await rows(first)).filter((row) => row.model === "ping-pong" || (row.status === 508 && row.endpoint === "/v1/chat/completions"));
      const onSecond = (await rows(second)).filter((row) => row.model === "ping-pong");
      assert.equal(onFirst.length, 2);
      assert.equal(onSecond.length, 1);
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal((await rows(second)).filter((row) => row.model === "ping-pong").length, 1, "nothing kept going after the answer");
  });

  test("a chain of different gateways within the limit works, and names each hop upstream", async () => {
    assert.equal(
      (await second.admin("POST", "/api/admin/channels", { type: "openai", name: "fake", baseUrl: fake.baseUrl, apiKey: UPSTREAM_API_KEY, models: ["chained"] })).status,
      201,
    );
    assert.equal(
      (await first.admin("POST", "/api/admin/channels", { type: "openai", name: "chain", baseUrl: `${second.url}/v1`, apiKey: keys.second, models: ["chained"] })).status,
      201,
    );
    const client = new OpenAI({ apiKey: keys.first, baseURL: `${first.url}/v1`, maxRetries: 0 });
    const completion = await client.chat.completions.create({ model: "chained", messages: [{ role: "user", content: "hi" }] });
    assert.ok(completion.choices[0]?.message.content);
    const hops = String(fake.received.at(-1)!.headers["x-gateway-hops"]).split(",");
    assert.equal(hops.length, 2);
    assert.notEqual(hops[0], hops[1]);
  });

  test("a request that already passed the hop limit is refused in the caller's format", async () => {
    const response = await fetch(`${first.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": keys.first, "anthropic-version": "2023-06-01", "content-type": "application/json", "x-gateway-hops": "aaa,bbb,ccc" },
      body: JSON.stringify({ model: "chained", max_tokens: 5, messages: [{ role: "user", content: "hi" }] }),
    });
    assert.equal(response.status, 508);
    const body = (await response.json()) as { type: string; error: { type: string; message: string } };
    assert.equal(body.type, "error");
    assert.match(body.error.message, /GATEWAY_MAX_HOPS/);
  });
});
