import assert from "node:assert/strict";
import http from "node:http";
import { after, before, describe, test } from "node:test";
import { gzipSync } from "node:zlib";
import { startGateway, type Gateway } from "../helpers/start-gateway";

// A body under the size limit can still hold hundreds of thousands of tiny messages; it is
// refused with a 413 in the caller's format before it is parsed, and the gateway keeps
// serving others. A compressed body that expands past the limit closes its connection, so
// the next request a client sends is answered on a new one (issue 29, items 5 and 9).

let gateway: Gateway;
let key: string;
const MANY = 150_000;

before(async () => {
  gateway = await startGateway({ MAX_BODY_BYTES: String(8 * 1024 * 1024) });
  key = (await gateway.admin("POST", "/api/admin/tokens", { name: "big" })).body.key;
});
after(async () => {
  await gateway?.stop();
});

const tiny = Array.from({ length: MANY }, () => ({ role: "user", content: "a" }));
const routes = [
  {
    name: "OpenAI chat",
    path: "/v1/chat/completions",
    headers: () => ({ authorization: `Bearer ${key}` }),
    body: { model: "mock-chat", messages: tiny },
    shape: (json: any) => json.error?.code === "too_many_json_values",
  },
  {
    name: "Anthropic messages",
    path: "/v1/messages",
    headers: () => ({ "x-api-key": key, "anthropic-version": "2023-06-01" }),
    body: { model: "mock-chat", max_tokens: 5, messages: tiny },
    shape: (json: any) => json.type === "error" && json.error?.type === "request_too_large",
  },
  {
    name: "Gemini generateContent",
    path: "/v1beta/models/mock-chat:generateContent",
    headers: () => ({ "x-goog-api-key": key }),
    body: { contents: Array.from({ length: MANY }, () => ({ role: "user", parts: [{ text: "a" }] })) },
    shape: (json: any) => json.error?.code === 413 && typeof json.error.message === "string",
  },
  {
    name: "Responses",
    path: "/v1/responses",
    headers: () => ({ authorization: `Bearer ${key}` }),
    body: { model: "mock-chat", input: tiny },
    shape: (json: any) => json.error?.code === "too_many_json_values",
  },
];

async function post(path: string, headers: Record<string, string>, body: unknown) {
  const response = await fetch(`${gateway.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, json: JSON.parse(text) };
}

describe("a body of many tiny messages", () => {
  for (const route of routes) {
    test(`is a 413 in the caller's format: ${route.name}`, async () => {
      const answer = await post(route.path, route.headers(), route.body);
      assert.equal(answer.status, 413, JSON.stringify(answer.json).slice(0, 300));
      assert.ok(route.shape(answer.json), JSON.stringify(answer.json).slice(0, 300));
    });
  }

  test("several at once leave the gateway serving others; a long agent-sized conversation is served", async () => {
    const big = Promise.all(Array.from({ length: 6 }, () => post(routes[0]!.path, routes[0]!.headers(), routes[0]!.body)));
    const health = await fetch(`${gateway.url}/api/health`);
    assert.equal(health.status, 200);
    await health.arrayBuffer();
    for (const answer of await big) assert.equal(answer.status, 413);
    // 2,000 turns with tool calls: far below the limit.
    const messages = Array.from({ length: 2000 }, (_, index) => ({ role: index % 2 ? "assistant" : "user", content: [{ type: "text", text: `turn ${index}` }] }));
    const served = await post("/v1/chat/completions", { authorization: `Bearer ${key}` }, { model: "mock-chat", messages });
    assert.equal(served.status, 200, JSON.stringify(served.json).slice(0, 300));
  });
});

describe("a compressed body that expands past the limit", () => {
  test("gets its 413, and the next request on a kept-alive connection is answered", async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    // 40 gzip members of 10 MB of spaces each: 400 KB that expand to 400 MB.
    const bomb = Buffer.concat(Array.from({ length: 40 }, () => gzipSync(Buffer.alloc(10_000_000, " "))));
    const send = (body: Buffer, headers: Record<string, string>) =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        const request = http.request(
          `${gateway.url}/v1/chat/completions`,
          { method: "POST", agent, headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "content-length": String(body.length), ...headers } },
          (response) => {
            let text = "";
            response.setEncoding("utf8");
            response.on("data", (chunk) => (text += chunk));
            response.on("end", () => resolve({ status: response.statusCode ?? 0, text }));
          },
        );
        request.on("error", reject);
        request.end(body);
      });
    try {
      const refused = await send(bomb, { "content-encoding": "gzip" });
      assert.equal(refused.status, 413, refused.text.slice(0, 200));
      const next = await send(Buffer.from(JSON.stringify({ model: "mock-chat", messages: [{ role: "user", content: "hi" }] })), {});
      assert.equal(next.status, 200, next.text.slice(0, 200));
    } finally {
      agent.destroy();
    }
  });
});
