import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import WebSocket from "ws";
import { eventually } from "../helpers/eventually";
import { startFakeRealtimeUpstream, type FakeRealtime } from "../helpers/fake-realtime-upstream";
import { startGateway, type Gateway } from "../helpers/start-gateway";

// GET /v1/realtime over WebSocket: authenticated by Bearer or the browser subprotocol,
// proxied both ways, the caller's token never sent upstream, usage logged.

const UPSTREAM_KEY = "sk-upstream-realtime-0123456789";
let gateway: Gateway;
let upstream: FakeRealtime;
let key: string;

before(async () => {
  upstream = await startFakeRealtimeUpstream(UPSTREAM_KEY);
  gateway = await startGateway();
  await gateway.admin("POST", "/api/admin/channels", { type: "openai", name: "realtime", baseUrl: upstream.baseUrl, apiKey: UPSTREAM_KEY, models: ["gpt-realtime"], modelMap: { "gpt-realtime": "gpt-realtime-2025" } });
  key = (await gateway.admin("POST", "/api/admin/tokens", { name: "realtime" })).body.key;
});
after(async () => {
  await gateway?.stop();
  await upstream?.close();
});

const wsUrl = (query: string) => `${gateway.url.replace(/^http/, "ws")}/v1/realtime${query}`;

function events(socket: WebSocket): { list: { type: string; [key: string]: unknown }[]; until(type: string): Promise<void> } {
  const list: { type: string }[] = [];
  const waiters: [string, () => void][] = [];
  socket.on("message", (data) => {
    const event = JSON.parse(data.toString()) as { type: string };
    list.push(event);
    for (const [type, resolve] of waiters) if (type === event.type) resolve();
  });
  return {
    list,
    until: (type) => (list.some((event) => event.type === type) ? Promise.resolve() : new Promise((resolve) => waiters.push([type, resolve]))),
  };
}

const closed = (socket: WebSocket) => new Promise<{ code: number; reason: string }>((resolve) => socket.once("close", (code, reason) => resolve({ code, reason: reason.toString() })));

describe("realtime WebSocket", () => {
  test("a browser-style client (key in the subprotocol) talks to the upstream both ways; the key never goes upstream; usage is logged", async () => {
    const socket = new WebSocket(wsUrl("?model=gpt-realtime"), ["realtime", `openai-insecure-api-key.${key}`, "openai-beta.realtime-v1"]);
    const received = events(socket);
    await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
    assert.equal(socket.protocol, "realtime");
    // Sent at once, while the gateway may still be connecting upstream: it must not be lost.
    socket.send(JSON.stringify({ type: "response.create" }));
    await received.until("response.done");
    assert.deepEqual(received.list.map((event) => event.type), ["session.created", "response.created", "response.output_text.delta", "response.done"]);
    const connection = upstream.connections.at(-1)!;
    assert.equal(connection.headers.authorization, `Bearer ${UPSTREAM_KEY}`);
    assert.ok(connection.url.includes("model=gpt-realtime-2025"), "the model map applies");
    assert.equal(JSON.stringify(connection).includes(key), false, "the caller's token is not sent upstream, not even as a subprotocol");
    const done = closed(socket);
    socket.close(1000, "bye");
    await done;
    await eventually(async () => {
      const { body } = await gateway.admin("GET", "/api/admin/logs?limit=100");
      const rows = (body.data as { endpoint: string; status: number; promptTokens: number; completionTokens: number; cachedTokens: number }[]).filter((row) => row.endpoint === "/v1/realtime" && row.status === 101);
      assert.equal(rows.length, 1);
      assert.deepEqual([rows[0]!.promptTokens, rows[0]!.completionTokens, rows[0]!.cachedTokens], [18, 12, 4]);
    });
  });

  test("a server client authenticates with the Bearer header", async () => {
    const socket = new WebSocket(wsUrl("?model=gpt-realtime"), { headers: { authorization: `Bearer ${key}` } });
    const received = events(socket);
    await received.until("session.created");
    const done = closed(socket);
    socket.close();
    await done;
  });

  test("a wrong key gets an error event and a clean close with the reason", async () => {
    const socket = new WebSocket(wsUrl("?model=gpt-realtime"), ["realtime", "openai-insecure-api-key.sk-wrong"]);
    const received = events(socket);
    const { code, reason } = await closed(socket);
    assert.equal(code, 1008);
    assert.match(reason, /API key/);
    const error = received.list.find((event) => event.type === "error") as { error: { code: string } } | undefined;
    assert.equal(error?.error.code, "invalid_api_key");
    assert.ok(upstream.connections.every((connection) => !JSON.stringify(connection).includes("sk-wrong")));
  });

  test("a missing model is a 400 before any upstream connection", async () => {
    const before = upstream.connections.length;
    const socket = new WebSocket(wsUrl(""), ["realtime", `openai-insecure-api-key.${key}`]);
    const status = await new Promise<number>((resolve) =>
      socket.once("unexpected-response", (request, response) => {
        resolve(response.statusCode ?? 0);
        request.destroy();
      }),
    );
    assert.equal(status, 400);
    assert.equal(upstream.connections.length, before);
  });
});
