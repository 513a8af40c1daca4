import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import OpenAI from "openai";
import { startFakeOpenAIUpstream, UPSTREAM_API_KEY, type FakeUpstream } from "../helpers/fake-openai-upstream";
import { startGateway, type Gateway } from "../helpers/start-gateway";

// REQUEST_LOG=off: no rows are stored, but what tokens used is still counted, and the
// start-up block says what is missing.

let upstream: FakeUpstream;
let gateway: Gateway;

before(async () => {
  upstream = await startFakeOpenAIUpstream();
  gateway = await startGateway({ REQUEST_LOG: "off" });
  await gateway.admin("POST", "/api/admin/channels", { name: "fake", type: "openai", baseUrl: upstream.baseUrl, apiKey: UPSTREAM_API_KEY, models: ["gpt-test"] });
});
after(async () => {
  await gateway?.stop();
  await upstream?.close();
});

test("with the request log off, answers and token totals are kept and no row is stored", async () => {
  const token = (await gateway.admin("POST", "/api/admin/tokens", { name: "unlogged" })).body;
  const client = new OpenAI({ apiKey: token.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  const reply = await client.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "a b c" }] });
  assert.equal(reply.choices[0]!.message.content, "Echo: a b c");
  const stream = await client.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "d e" }], stream: true, stream_options: { include_usage: true } });
  let streamed = 0;
  for await (const chunk of stream) streamed += chunk.usage?.total_tokens ?? 0;
  assert.ok(streamed > 0);

  const logs = await gateway.admin("GET", "/api/admin/logs?limit=100"); // also flushes the queue
  assert.equal(logs.status, 200);
  assert.deepEqual(logs.body.data, []);
  const { body } = await gateway.admin("GET", `/api/admin/tokens/${token.id}`);
  assert.equal(body.usedTokens, reply.usage!.total_tokens + streamed, "both requests counted on the token");
  assert.match(gateway.output(), /Request log: +off \(REQUEST_LOG\)/);
});
