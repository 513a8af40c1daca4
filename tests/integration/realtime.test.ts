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
  await gateway.admin("POST", "/api/admin/channels", {
    type: "openai",
    name: "realtime",
    baseUrl: upstream.baseUrl,
    apiKey: UPSTREAM_KEY,
    models: ["gpt-realtime"],
    modelMap: { "gpt-realtime": "gpt-realtime-2025" },
  });
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

const closed = (socket: WebSocket) =>
  new Promise<{ code: number; reason: string }>((resolve) => socket.once("close", (code, reason) => resolve({ code, reason: reason.toString() })));

describe("realtime WebSocket", () => {
  test("a browser-style client (key in the subprotocol) talks to the upstream both ways; the key never goes upstream; usage is logged", async () => {
    const socket = new WebSocket(wsUrl("?model=gpt-realtime"), ["realtime", `openai-insecure-api-key.${key}`, "openai-beta.realtime-v1"]);
    const received = events(socket);
    await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
    assert.equal(socket.protocol, "realtime");
    // Sent at once, while the gateway may still be connecting upstream: it must not be lost.
    socket.send(JSON.stringify({ type: "response.create" }));
    await received.until("response.done");
    assert.deepEqual(
      received.list.map((event) => event.type),
      ["session.created", "response.created", "response.output_text.delta", "response.done"],
    );
    const connection = upstream.connections.at(-1)!;
    assert.equal(connection.headers.authorization, `Bearer ${UPSTREAM_KEY}`);
    assert.ok(connection.url.includes("model=gpt-realtime-2025"), "the model map applies");
    assert.equal(JSON.stringify(connection).includes(key), false, "the caller's token is not sent upstream, not even as a subprotocol");
    const done = closed(socket);
    socket.close(1000, "bye");
    await done;
    await eventually(async () => {
      const { body } = await gateway.admin("GET", "/api/admin/logs?limit=100");
      const rows = (body.data as { endpoint: string; status: number; promptTokens: number; completionTokens: number; cachedTokens: number }[]).filter(
        (row) => row.endpoint === "/v1/realtime" && row.status === 101,
      );
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

// Realtime on the one attempt core: a refused upgrade fails over like an HTTP attempt,
// a 400 is the caller's (never counted against the channel), and cool-downs hold.
describe("realtime failover", () => {
  let failover: Gateway;
  let broken: FakeRealtime;
  let healthy: FakeRealtime;
  let picky: FakeRealtime;
  let limited: FakeRealtime;
  let token: string;
  const ids: Record<string, string> = {};

  before(async () => {
    [broken, healthy, picky, limited] = await Promise.all([1, 2, 3, 4].map(() => startFakeRealtimeUpstream(UPSTREAM_KEY)));
    broken.refuse = { status: 500 };
    picky.refuse = { status: 400 };
    limited.refuse = { status: 429, headers: { "retry-after": "60" } };
    // One counted failure opens a circuit: a 400 counted by mistake would show at once.
    failover = await startGateway({ CIRCUIT_CONSECUTIVE_FAILURES: "1", ROUTING_BACKOFF_MS: "0" });
    const channel = async (name: string, fake: FakeRealtime, models: string[], priority: number) => {
      const { status, body } = await failover.admin("POST", "/api/admin/channels", { type: "openai", name, baseUrl: fake.baseUrl, apiKey: UPSTREAM_KEY, models, priority });
      assert.equal(status, 201);
      ids[name] = body.id;
    };
    await channel("broken", broken, ["rt-failover"], 10);
    await channel("healthy", healthy, ["rt-failover", "rt-cooldown"], 0);
    await channel("picky", picky, ["rt-picky"], 0);
    await channel("limited", limited, ["rt-cooldown"], 10);
    token = (await failover.admin("POST", "/api/admin/tokens", { name: "realtime-failover" })).body.key;
  });
  after(async () => {
    await failover?.stop();
    await Promise.all([broken, healthy, picky, limited].map((fake) => fake?.close()));
  });

  const open = (model: string) => new WebSocket(`${failover.url.replace(/^http/, "ws")}/v1/realtime?model=${model}`, { headers: { authorization: `Bearer ${token}` } });
  const state = async (name: string) =>
    (await failover.admin("GET", `/api/admin/channels/${ids[name]}`)).body.state as {
      circuit: string;
      until: number | null;
      models: Record<string, { circuit: string; coolDownUntil: number | null }>;
    };

  test("a channel that refuses the upgrade (500) is failed over to a healthy one, and its circuit opens", async () => {
    const socket = open("rt-failover");
    const received = events(socket);
    await received.until("session.created");
    assert.equal(broken.connections.length, 1, "the broken channel was tried first");
    assert.equal(healthy.connections.length, 1);
    const done = closed(socket);
    socket.close();
    await done;
    await eventually(async () => {
      const { body } = await failover.admin("GET", "/api/admin/logs?limit=100");
      const row = (body.data as { model: string; status: number; attempts: { channelName: string; status: number }[] }[]).find((entry) => entry.model === "rt-failover");
      assert.ok(row, "one row for the session");
      assert.equal(row.status, 101);
      assert.deepEqual(
        row.attempts.map((attempt) => [attempt.channelName, attempt.status]),
        [
          ["broken", 500],
          ["healthy", 101],
        ],
      );
    });
    await eventually(async () => assert.notEqual((await state("broken")).models["rt-failover"]?.circuit ?? "closed", "closed"));
  });

  test("a 400 from the upstream reaches the client and is not counted against the channel", async () => {
    const socket = open("rt-picky");
    const received = events(socket);
    const done = closed(socket);
    await received.until("error");
    const error = received.list.find((event) => event.type === "error") as unknown as { error: { message: string } };
    assert.match(error.error.message, /400/);
    await done;
    const view = await state("picky");
    assert.equal(view.circuit, "closed");
    assert.equal(view.models["rt-picky"]?.circuit ?? "closed", "closed");
  });

  test("a 429 with Retry-After cools the channel down: the next session goes straight to the other one", async () => {
    for (let index = 0; index < 2; index += 1) {
      const socket = open("rt-cooldown");
      const received = events(socket);
      await received.until("session.created");
      const done = closed(socket);
      socket.close();
      await done;
      if (index > 0) continue;
      // Every process has heard of the cool-down (a broadcast, with two) before the next session.
      for (let instance = 0; instance < failover.instances.length; instance += 1) {
        await eventually(async () => {
          const { body } = await failover.admin("GET", `/api/admin/channels/${ids.limited}`, undefined, instance);
          assert.ok(body.state.models["rt-cooldown"]?.coolDownUntil, `process ${instance} knows the cool-down`);
        });
      }
    }
    assert.equal(limited.connections.length, 1, "tried once, then skipped while cooling down");
    const cooling = (await state("limited")).models["rt-cooldown"];
    assert.ok(cooling?.coolDownUntil && cooling.coolDownUntil > Date.now() + 30_000);
  });
});
