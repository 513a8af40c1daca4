import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { startFakeOpenAIUpstream, UPSTREAM_API_KEY, type FakeUpstream } from "../helpers/fake-openai-upstream";
import { startGateway, type Gateway } from "../helpers/start-gateway";

let upstream: FakeUpstream;
let gateway: Gateway;
let token: { id: string; key: string };
let client: OpenAI;
let channelId: string;

type LogRow = {
  id: string;
  endpoint: string;
  model: string | null;
  status: number;
  stream: boolean;
  tokenId: string | null;
  channelId: string | null;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  usageEstimated: boolean;
  latencyMs: number;
  firstTokenMs: number | null;
  errorMessage: string | null;
  upstreamModel: string | null;
};

async function logs(limit = 1000): Promise<LogRow[]> {
  const response = await gateway.admin("GET", `/api/admin/logs?limit=${limit}`);
  assert.equal(response.status, 200);
  return response.body.data;
}

before(async () => {
  upstream = await startFakeOpenAIUpstream();
  gateway = await startGateway();
  const channel = await gateway.admin("POST", "/api/admin/channels", {
    name: "fake",
    type: "openai",
    baseUrl: upstream.baseUrl,
    apiKey: UPSTREAM_API_KEY,
    models: ["gpt-test", "fake-no-usage", "fake-slow-stream"],
  });
  channelId = channel.body.id;
  token = (await gateway.admin("POST", "/api/admin/tokens", { name: "usage" })).body;
  client = new OpenAI({ apiKey: token.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
});

after(async () => {
  await gateway?.stop();
  await upstream?.close();
});

describe("usage log", () => {
  test("every request gets exactly one row, including failures", async () => {
    const before = (await logs()).length;
    const ids: string[] = [];
    const completion = await client.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "a b c" }] }).withResponse();
    ids.push(completion.response.headers.get("x-request-id")!);
    const stream = await client.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "d e" }], stream: true }).withResponse();
    for await (const _ of stream.data) void _;
    ids.push(stream.response.headers.get("x-request-id")!);
    const failed = await fetch(`${gateway.url}/v1/chat/completions`, { method: "POST", headers: { authorization: "Bearer sk-wrong" }, body: "{}" });
    ids.push(failed.headers.get("x-request-id")!);
    const invalid = await fetch(`${gateway.url}/v1/chat/completions`, { method: "POST", headers: { authorization: `Bearer ${token.key}` }, body: "nope" });
    ids.push(invalid.headers.get("x-request-id")!);

    const rows = await logs();
    assert.equal(rows.length, before + 4);
    for (const id of ids) assert.equal(rows.filter((row) => row.id === id).length, 1, `one row for ${id}`);

    const [plain, streamed, unauthorized, badJson] = ids.map((id) => rows.find((row) => row.id === id)!);
    assert.deepEqual(
      [plain!.status, plain!.stream, plain!.model, plain!.upstreamModel, plain!.channelId, plain!.tokenId],
      [200, false, "gpt-test", "gpt-test", channelId, token.id],
    );
    assert.equal(plain!.promptTokens, 11);
    assert.equal(plain!.completionTokens, 4);
    assert.equal(plain!.cachedTokens, 3);
    assert.equal(plain!.usageEstimated, false);
    assert.equal(streamed!.stream, true);
    assert.equal(streamed!.completionTokens, 3, "usage from the hidden usage chunk");
    assert.ok(streamed!.firstTokenMs !== null && streamed!.firstTokenMs <= streamed!.latencyMs);
    assert.equal(unauthorized!.status, 401);
    assert.equal(unauthorized!.tokenId, null);
    assert.equal(badJson!.status, 400);
    assert.equal(badJson!.tokenId, token.id);
  });

  test("an upstream that reports no usage is counted with the tokenizer", async () => {
    const result = await client.chat.completions.create({ model: "fake-no-usage", messages: [{ role: "user", content: "count these words please" }] }).withResponse();
    assert.equal(result.data.usage, undefined);
    const row = (await logs()).find((entry) => entry.id === result.response.headers.get("x-request-id"))!;
    assert.equal(row.usageEstimated, true);
    assert.ok(row.promptTokens >= 4, `prompt ${row.promptTokens}`);
    assert.ok(row.completionTokens >= 5, `completion ${row.completionTokens}`);
  });

  test("a stream the client abandons is logged once with the tokens produced so far", async () => {
    const controller = new AbortController();
    const result = await client.chat.completions
      .create({ model: "fake-slow-stream", messages: [{ role: "user", content: "go on" }], stream: true }, { signal: controller.signal })
      .withResponse();
    let seen = 0;
    try {
      for await (const chunk of result.data) {
        if (chunk.choices[0]?.delta.content) seen += 1;
        if (seen === 4) controller.abort();
      }
    } catch {
      // aborted
    }
    const id = result.response.headers.get("x-request-id")!;
    let row: LogRow | undefined;
    for (let attempt = 0; attempt < 40 && !row; attempt += 1) {
      row = (await logs()).find((entry) => entry.id === id);
      if (!row) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok(row, "logged");
    assert.equal(row.errorMessage, "client disconnected mid-stream");
    assert.equal(row.usageEstimated, true);
    assert.ok(row.completionTokens >= 4, `completion ${row.completionTokens}`);
    assert.equal((await logs()).filter((entry) => entry.id === id).length, 1);
  });

  test("used tokens accumulate on the token", async () => {
    // Reading the log writes what is pending first, the tokens' usage with it.
    const rows = (await logs()).filter((row) => row.tokenId === token.id);
    const response = await gateway.admin("GET", `/api/admin/tokens/${token.id}`);
    const total = rows.reduce((sum, row) => sum + row.promptTokens + row.completionTokens, 0);
    assert.equal(response.body.usedTokens, total);
    assert.ok(response.body.lastUsedAt);
  });
});
