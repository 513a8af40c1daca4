import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { eventually } from "../helpers/eventually";
import { startGateway, type Gateway } from "../helpers/start-gateway";

// /metrics counts what was served: the same requests the usage log holds.

let gateway: Gateway;
let key: string;

before(async () => {
  gateway = await startGateway({ METRICS_TOKEN: "metrics-token-0123456789" });
  assert.equal((await gateway.admin("POST", "/api/admin/channels", { name: "mock-a", type: "mock", models: ["mock-model"] })).status, 201);
  key = (await gateway.admin("POST", "/api/admin/tokens", { name: "metrics" })).body.key;
});

after(async () => gateway?.stop());

/** The sum, over every instance, of the samples of `name` whose labels include `labels`. */
async function sample(name: string, labels: Record<string, string>): Promise<number> {
  let total = 0;
  for (const instance of gateway.instances) {
    const response = await fetch(`${instance}/metrics`, { headers: { authorization: "Bearer metrics-token-0123456789" } });
    assert.equal(response.status, 200);
    for (const line of (await response.text()).split("\n")) {
      const match = /^(\w+)\{([^}]*)\} (\S+)$/.exec(line);
      if (!match || match[1] !== name) continue;
      const has = Object.entries(labels).every(([label, value]) => match[2]!.includes(`${label}="${value}"`));
      if (has) total += Number(match[3]);
    }
  }
  return total;
}

describe("metrics", () => {
  test("need the metrics token or the admin key", async () => {
    assert.equal((await fetch(`${gateway.url}/metrics`)).status, 401);
    assert.equal((await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${key}` } })).status, 401);
    assert.equal((await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${gateway.adminKey}` } })).status, 200);
  });

  test("request, token and latency counts match the requests made", async () => {
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
    let completionTokens = 0;
    for (let index = 0; index < 7; index += 1) {
      const completion = await client.chat.completions.create({ model: "mock-model", messages: [{ role: "user", content: `hi ${index}` }] });
      completionTokens += completion.usage!.completion_tokens;
    }
    for (let index = 0; index < 3; index += 1) {
      const stream = await client.chat.completions.create({
        model: "mock-model",
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: "user", content: "hi" }],
      });
      for await (const chunk of stream) completionTokens += chunk.usage?.completion_tokens ?? 0;
    }
    for (let index = 0; index < 4; index += 1) await client.chat.completions.create({ model: "no-such-model", messages: [{ role: "user", content: "hi" }] }).catch(() => undefined);

    const served = { endpoint: "/v1/chat/completions", model: "mock-model", channel: "mock-a", status: "200" };
    await eventually(async () => {
      assert.equal(await sample("gateway_requests_total", served), 10);
      assert.equal(await sample("gateway_requests_total", { endpoint: "/v1/chat/completions", model: "(unrouted)", status: "404" }), 4);
      assert.equal(await sample("gateway_request_duration_seconds_count", served), 10);
      assert.equal(await sample("gateway_time_to_first_token_seconds_count", { model: "mock-model", channel: "mock-a" }), 3);
      assert.equal(await sample("gateway_tokens_total", { model: "mock-model", direction: "completion" }), completionTokens);
    });
    assert.equal(await sample("gateway_channel_circuit_open", { channel: "mock-a" }), 0);
    const text = await (await fetch(`${gateway.instances[0]}/metrics`, { headers: { authorization: `Bearer ${gateway.adminKey}` } })).text();
    assert.match(text, /^gateway_log_queue_depth \d+$/m);
    assert.match(text, /^gateway_process_resident_memory_bytes \d+/m);
  });
});
