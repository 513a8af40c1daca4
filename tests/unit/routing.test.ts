import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Channel } from "@/lib/routing/channel";
import { ChannelCache } from "@/lib/channels/channel-cache";
import { LATENCY_EXPLORATION, pickChannels, type RoutingSignals } from "@/lib/routing/pick-channels";
import { RoutingStats } from "@/lib/routing/routing-stats";
import { RouteTable } from "@/lib/http/route-table";

const channel = (id: string, fields: Partial<Channel> = {}): Channel => ({
  id,
  name: id,
  type: "openai",
  baseUrl: "http://x/v1",
  apiKey: undefined,
  models: ["m"],
  modelMap: {},
  priority: 0,
  weight: 1,
  enabled: true,
  autoDisabledReason: null,
  capabilities: [],
  prices: {},
  timeouts: {},
  settings: {},
  ...fields,
});

describe("channel selection", () => {
  test("only enabled channels that list the model, highest priority first", () => {
    const channels = [
      channel("low", { priority: 0 }),
      channel("high", { priority: 10 }),
      channel("off", { priority: 20, enabled: false }),
      channel("other", { priority: 30, models: ["n"] }),
    ];
    assert.deepEqual(
      pickChannels(channels, "m").map((c) => c.id),
      ["high", "low"],
    );
    assert.deepEqual(pickChannels(channels, "absent"), []);
  });

  test("weights share traffic within a priority", () => {
    const channels = [channel("a", { weight: 3 }), channel("b", { weight: 1 })];
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const firsts = { a: 0, b: 0 } as Record<string, number>;
    for (let i = 0; i < 4000; i += 1) firsts[pickChannels(channels, "m", { random })[0]!.id]! += 1;
    const share = firsts.a! / 4000;
    assert.ok(share > 0.7 && share < 0.8, `share of a: ${share}`);
  });

  test("weight 0 is a standby tried after its peers", () => {
    const channels = [channel("standby", { weight: 0 }), channel("main", { weight: 1 })];
    for (let i = 0; i < 50; i += 1)
      assert.deepEqual(
        pickChannels(channels, "m").map((c) => c.id),
        ["main", "standby"],
      );
  });
});

describe("strategies within a priority tier", () => {
  const signals = (latency: Record<string, number>, inFlight: Record<string, number> = {}): RoutingSignals => ({
    latencyMs: (id) => latency[id],
    inFlight: (id) => inFlight[id] ?? 0,
  });

  test("latency: the faster of two first, except for the exploring share", () => {
    const channels = [channel("slow"), channel("fast"), channel("lower", { priority: -1 })];
    let firstFast = 0;
    for (let i = 0; i < 2000; i += 1) {
      const order = pickChannels(channels, "m", { strategy: "latency", signals: signals({ slow: 400, fast: 100, lower: 1 }) }).map((c) => c.id);
      assert.equal(order[2], "lower", "priority still comes first");
      if (order[0] === "fast") firstFast += 1;
    }
    const share = firstFast / 2000;
    assert.ok(share > 1 - LATENCY_EXPLORATION && share < 1 - LATENCY_EXPLORATION / 4, `share of fast: ${share}`);
  });

  test("latency: an unmeasured channel goes first, so it gets measured", () => {
    const channels = [channel("known"), channel("new")];
    const order = pickChannels(channels, "m", { strategy: "latency", signals: signals({ known: 50 }), random: () => 0.5 }).map((c) => c.id);
    assert.deepEqual(order, ["new", "known"]);
  });

  test("least-busy: fewest in flight first; standbys stay last", () => {
    const channels = [channel("busy"), channel("idle"), channel("standby", { weight: 0 })];
    const order = pickChannels(channels, "m", { strategy: "least-busy", signals: signals({}, { busy: 3, idle: 1, standby: 0 }) }).map((c) => c.id);
    assert.deepEqual(order, ["idle", "busy", "standby"]);
  });

  test("cost: cheapest by the channel's price for the model; unpriced last", () => {
    const channels = [
      channel("unpriced"),
      channel("dear", { prices: { m: { input: 3, output: 15 } } }),
      channel("cheap", { prices: { "*": { input: 0.5, output: 1 } } }),
      channel("mapped", { modelMap: { m: "upstream-m" }, prices: { "upstream-m": { input: 1, output: 4 } } }),
    ];
    assert.deepEqual(
      pickChannels(channels, "m", { strategy: "cost" }).map((c) => c.id),
      ["cheap", "mapped", "dear", "unpriced"],
    );
  });

  test("routing stats: a moving average, in-flight counts that end once, stale averages forgotten", () => {
    let now = 0;
    const stats = new RoutingStats(() => now);
    stats.recordLatency("a", "m", 100);
    stats.recordLatency("a", "m", 200);
    assert.equal(stats.latencyMs("a", "m"), 130);
    assert.equal(stats.latencyMs("a", "other"), undefined);
    const end = stats.begin("a");
    stats.begin("a");
    end();
    end();
    assert.equal(stats.inFlight("a"), 1);
    now += 10 * 60_000;
    assert.equal(stats.latencyMs("a", "m"), undefined, "a recovered channel counts as unmeasured again");
  });
});

describe("API route table", () => {
  const noop = async () => ({ status: 200, headers: {}, body: null });
  const table = new RouteTable().add("GET", "/a/b", noop).add("PATCH", "/items/:id", noop);
  test("matches static paths and captures parameters by method", () => {
    assert.ok(table.match("GET", "/a/b"));
    assert.equal(table.match("POST", "/a/b"), undefined);
    assert.deepEqual(table.match("PATCH", "/items/x%20y")?.params, { id: "x y" });
    assert.equal(table.match("PATCH", "/items/"), undefined);
    assert.equal(table.match("PATCH", "/items/a/b"), undefined);
  });
});

describe("channel capabilities", () => {
  test("an empty list serves every operation; a list serves only what it names, token counting with chat", async () => {
    const { channelServes } = await import("@/lib/routing/channel");
    assert.equal(channelServes(channel("all"), "embeddings"), true);
    const chatOnly = channel("chat-only", { capabilities: ["chat"] });
    assert.equal(channelServes(chatOnly, "chat"), true);
    assert.equal(channelServes(chatOnly, "count-tokens"), true);
    assert.equal(channelServes(chatOnly, "embeddings"), false);
    assert.equal(channelServes(channel("embed", { capabilities: ["embeddings"] }), "chat"), false);
  });
});

describe("channel cache reloads", () => {
  const row = (name: string) => ({
    id: name,
    name,
    type: "openai",
    baseUrl: "http://upstream.test/v1",
    apiKeyEncrypted: null,
    models: ["m"],
    modelMap: {},
    priority: 0,
    weight: 1,
    enabled: true,
    autoDisabledReason: null,
    capabilities: [],
    prices: {},
    timeouts: {},
    settings: {},
    createdAt: new Date(),
  });
  /** A cache over a database whose queries answer only when the test says so. */
  function controlledCache(stored: ReturnType<typeof row>[]) {
    const pending: (() => void)[] = [];
    let loads = 0;
    const database = {
      channel: {
        findMany: () => {
          loads += 1;
          const snapshot = [...stored]; // what a query reads when it starts
          return new Promise((resolve) => pending.push(() => resolve(snapshot)));
        },
      },
    };
    const cache = new ChannelCache(database as never, [Buffer.alloc(32)], (error) => assert.fail(String(error)));
    return { cache, pending, loads: () => loads };
  }

  test("a reload asked for while one is under way waits for a load that started after it", async () => {
    const stored = [row("first")];
    const { cache, pending, loads } = controlledCache(stored);
    const early = cache.reload(); // under way before the change
    stored.push(row("added"));
    const late = cache.reload();
    const alsoLate = cache.reload();
    pending.shift()!();
    await early;
    assert.deepEqual(
      cache.all().map((channel) => channel.name),
      ["first"],
    );
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(loads(), 2, "one more load, shared by both later callers");
    pending.shift()!();
    await Promise.all([late, alsoLate]);
    assert.deepEqual(
      cache.all().map((channel) => channel.name),
      ["first", "added"],
    );
  });

  test("a change another process announced is there to wait for until it has loaded", async () => {
    const stored = [row("first")];
    const { cache, pending } = controlledCache(stored);
    const settlingNow = () => cache.settling;
    assert.equal(settlingNow(), undefined, "nothing announced: requests do not wait");
    stored[0] = { ...row("first"), enabled: false };
    const loading = cache.reloadAnnounced();
    const settling = settlingNow();
    assert.ok(settling);
    let settled = false;
    void settling.then(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(settled, false, "not before the load answers");
    pending.shift()!();
    await loading;
    await settling;
    assert.equal(cache.all()[0]!.enabled, false, "a request that waited routes on the change");
    assert.equal(settlingNow(), undefined);
  });
});
