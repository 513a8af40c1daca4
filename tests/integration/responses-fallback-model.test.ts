import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import OpenAI from "openai";
import { startGateway, type Gateway } from "../helpers/start-gateway";

// A Responses answer a fallback served names the model that answered, as chat completions
// and messages answers do (and as OpenAI names the dated model that served an alias):
// the Playground and clients tell from it that a fallback answered.

let gateway: Gateway;
let client: OpenAI;

before(async () => {
  gateway = await startGateway();
  // A port nothing listens on any more: every attempt is refused before its first byte.
  const closed = http.createServer();
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  const dead = { name: "gone", type: "openai", baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: "sk-gone-0123456789", models: ["gpt-gone"] };
  assert.equal((await gateway.admin("POST", "/api/admin/channels", dead)).status, 201);
  assert.equal((await gateway.admin("POST", "/api/admin/models", { name: "gpt-gone", fallbacks: ["mock-chat"] })).status, 201);
  const key = (await gateway.admin("POST", "/api/admin/tokens", { name: "fallbacks" })).body.key;
  client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
});
after(async () => {
  await gateway?.stop();
});

test("a Responses answer from a fallback names the fallback, whole and streamed", async () => {
  const { data: response, response: raw } = await client.responses.create({ model: "gpt-gone", input: "Say hello" }).withResponse();
  assert.equal(response.model, "mock-chat");
  assert.equal(raw.headers.get("x-gateway-fallback-from"), "gpt-gone");

  const stream = await client.responses.create({ model: "gpt-gone", input: "Say hello", stream: true });
  const models: string[] = [];
  for await (const event of stream) if ("response" in event) models.push(event.response.model);
  assert.ok(models.length >= 2);
  assert.deepEqual(new Set(models), new Set(["mock-chat"]));
});

test("asked for directly, the model answers under its own name", async () => {
  const response = await client.responses.create({ model: "mock-chat", input: "Say hello" });
  assert.equal(response.model, "mock-chat");
});
