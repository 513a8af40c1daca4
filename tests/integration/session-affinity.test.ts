import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import { sessionHash } from "@/lib/routing/session-affinity";
import { ANTHROPIC_KEY, startFakeAnthropicUpstream } from "../helpers/fake-anthropic-upstream";
import { startFakeOpenAIUpstream, UPSTREAM_API_KEY, type FakeUpstream } from "../helpers/fake-openai-upstream";
import type { FakeServer } from "../helpers/fake-upstream-server";
import { eventually } from "../helpers/eventually";
import { startKeyedFront, type KeyedFront } from "../helpers/keyed-front";
import { startGateway, type Gateway } from "../helpers/start-gateway";

// Teams of coding agents: two channels for one model, each with a pool of two keys. A
// Claude Code session (its session header) keeps every turn on one channel and key so the
// vendor's prompt cache stays warm; sessions spread over the pool; requests without a
// session still spread; a session whose channel fails moves once and stays. In the
// many-instance pass the turns alternate between two processes sharing Redis.

const poolKey = (name: string) => `sk-ant-${name}-${randomBytes(12).toString("hex")}`;
const keysA = [poolKey("a1"), poolKey("a2")];
const keysB = [poolKey("b1"), poolKey("b2")];
const keysC = [poolKey("c1"), poolKey("c2")];

let gateway: Gateway;
let fake: FakeServer;
let openAI: FakeUpstream;
let fronts: Record<"a" | "b" | "c", KeyedFront>;
let tokenKey: string;
const channelIds: Record<string, string> = {};

before(async () => {
  fake = await startFakeAnthropicUpstream();
  openAI = await startFakeOpenAIUpstream();
  const front = (keys: string[]) => startKeyedFront({ keys, target: fake.origin, targetKey: ANTHROPIC_KEY });
  fronts = { a: await front(keysA), b: await front(keysB), c: await front(keysC) };
  gateway = await startGateway({ ROUTING_BACKOFF_MS: "0", CHANNEL_PROBE_INTERVAL_MS: "300" });
  for (const key of [...keysA, ...keysB, ...keysC]) gateway.secrets.add(key);
  for (const [name, keys, model] of [
    ["a", keysA, "claude-pool"],
    ["b", keysB, "claude-pool"],
    ["c", keysC, "claude-keys"],
  ] as const) {
    const created = await gateway.admin("POST", "/api/admin/channels", { type: "anthropic", name: `pool ${name}`, baseUrl: fronts[name].baseUrl, apiKeys: keys, models: [model] });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    channelIds[name] = created.body.id;
  }
  const cache = await gateway.admin("POST", "/api/admin/channels", { type: "openai", name: "openai", baseUrl: openAI.baseUrl, apiKey: UPSTREAM_API_KEY, models: ["gpt-cached"] });
  assert.equal(cache.status, 201);
  tokenKey = (await gateway.admin("POST", "/api/admin/tokens", { name: "agents" })).body.key;
  gateway.secrets.add(tokenKey);
});
after(async () => {
  await gateway?.stop();
  for (const front of Object.values(fronts ?? {})) await front.close();
  await fake?.close();
  await openAI?.close();
});

/** One turn of a session, through the gateway process `turn` lands on (they alternate when there are two). */
async function turn(session: string | null, prompt: string, index: number, model = "claude-pool") {
  const instance = gateway.instances[index % gateway.instances.length]!;
  const client = new Anthropic({
    baseURL: instance,
    apiKey: tokenKey,
    maxRetries: 0,
    defaultHeaders: session ? { "x-claude-code-session-id": session } : {},
  });
  const message = await client.messages.create({ model, max_tokens: 64, messages: [{ role: "user", content: prompt }] });
  assert.equal(message.content[0]?.type, "text");
  return message;
}

/** Which channel and key served the request whose prompt was `prompt`. */
function servedBy(prompt: string): string[] {
  const seen: string[] = [];
  for (const [name, front] of Object.entries(fronts)) {
    for (const request of front.received) if (request.prompt === prompt) seen.push(`${name} ${request.key.slice(-4)}`);
  }
  return seen;
}

describe("session affinity over channels with key pools", () => {
  const sessions = Array.from({ length: 10 }, () => randomUUID());
  const homes = new Map<string, string>();

  test("each session's six turns stay on one channel and key, and the sessions spread over the pool", async () => {
    for (const [index, session] of sessions.entries()) {
      const served = new Set<string>();
      for (let number = 0; number < 6; number++) {
        const prompt = `session ${index} turn ${number}`;
        await turn(session, prompt, number);
        const seen = servedBy(prompt);
        assert.equal(seen.length, 1, `${prompt} reached one upstream: ${seen.join(", ")}`);
        served.add(seen[0]!);
      }
      assert.equal(served.size, 1, `session ${index} stayed on one channel and key: ${[...served].join(", ")}`);
      homes.set(session, [...served][0]!);
    }
    const spread = new Set(homes.values());
    assert.ok(spread.size >= 2, `the sessions spread over the pool: ${[...spread].join(", ")}`);
  });

  test("requests without a session still spread over channels and keys", async () => {
    const served = new Set<string>();
    for (let index = 0; index < 24; index++) {
      const prompt = `no session ${index}`;
      await turn(null, prompt, index);
      served.add(servedBy(prompt)[0]!);
    }
    assert.ok(served.size >= 3, `spread: ${[...served].join(", ")}`);
  });

  test("a session whose channel starts answering 500 moves once and stays on its new channel and key", async () => {
    const session = sessions[0]!;
    const home = homes.get(session)!;
    const failing = home.split(" ")[0] as "a" | "b";
    fronts[failing].failWith = 500;
    try {
      const served: string[] = [];
      for (let number = 0; number < 6; number++) {
        const prompt = `moved session turn ${number}`;
        await turn(session, prompt, number);
        served.push(...servedBy(prompt).filter((entry) => !entry.startsWith(failing)));
      }
      assert.equal(served.length, 6);
      const failedTries = fronts[failing].received.filter((request) => request.prompt.startsWith("moved session")).length;
      assert.equal(failedTries, 1, "the failing channel is tried once, on the turn that moves");
      assert.equal(new Set(served).size, 1, `after moving it stays: ${served.join(", ")}`);
      assert.notEqual(served[0]!.split(" ")[0], failing);
    } finally {
      fronts[failing].failWith = null;
    }
  });

  test("the log row keeps a hash of the session, never the id, and the cached input tokens", async () => {
    const session = `log-check-${randomUUID()}`;
    const message = await turn(session, "log check", 0);
    assert.equal(message.usage.cache_read_input_tokens, 5);
    await eventually(async () => {
      const logs = await gateway.admin("GET", "/api/admin/logs?limit=5");
      const row = (logs.body.data as { sessionHash?: string | null; cachedTokens: number; model: string }[]).find((entry) => entry.sessionHash);
      assert.ok(row, JSON.stringify(logs.body).slice(0, 400));
      assert.match(row.sessionHash!, /^[0-9a-f]{32}$/);
      assert.equal(row.cachedTokens, 5);
    });
    assert.doesNotMatch(await gateway.storedText(), new RegExp(session));
  });
});

describe("upstream key pools", () => {
  test("a key answering 401 is disabled while the other key of the channel keeps serving", async () => {
    fronts.c.refused.add(keysC[0]!);
    for (let index = 0; index < 10; index++) await turn(null, `pool c ${index}`, index, "claude-keys");
    // (The prober's tries of the refused key are not requests: only the "pool c" prompts count.)
    const requests = fronts.c.received.filter((request) => request.prompt.startsWith("pool c"));
    const refusedTries = requests.filter((request) => request.key === keysC[0]).length;
    assert.ok(refusedTries <= gateway.instances.length, `the refused key is tried once per process at most (${refusedTries})`);
    assert.equal(requests.filter((request) => request.key === keysC[1]).length, 10);
    await eventually(async () => {
      const channel = (await gateway.admin("GET", `/api/admin/channels/${channelIds.c}`)).body;
      assert.equal(channel.autoDisabledReason, null, "the channel stays in rotation");
      assert.deepEqual(
        channel.keys.map((key: { key: string; state: string }) => [key.key, key.state]),
        [
          [`…${keysC[0]!.slice(-4)}`, "disabled"],
          [`…${keysC[1]!.slice(-4)}`, "active"],
        ],
      );
    });
  });

  test("a refused key that answers a probe again is back in the pool", async () => {
    fronts.c.refused.clear();
    await eventually(async () => {
      const channel = (await gateway.admin("GET", `/api/admin/channels/${channelIds.c}`)).body;
      assert.deepEqual(
        channel.keys.map((key: { state: string }) => key.state),
        ["active", "active"],
      );
    }, 5000);
  });

  test("the channel JSON lists each key by its last four characters only", async () => {
    const listed = await gateway.admin("GET", "/api/admin/channels");
    const text = JSON.stringify(listed.body);
    for (const key of [...keysA, ...keysB, ...keysC]) {
      assert.ok(!text.includes(key), "no whole key in the channel JSON");
      assert.ok(text.includes(`…${key.slice(-4)}`));
    }
  });
});

describe("a cache hint for an OpenAI upstream", () => {
  test("a Claude Code session reaching an OpenAI channel sends prompt_cache_key derived from the session, never the id", async () => {
    const session = randomUUID();
    await turn(session, "cache hint one", 0, "gpt-cached");
    await turn(session, "cache hint two", 1, "gpt-cached");
    const sent = openAI.received.filter((request) => request.path.endsWith("/chat/completions"));
    assert.equal(sent.length, 2);
    for (const request of sent) {
      assert.equal(request.body.prompt_cache_key, sessionHash(session));
      assert.ok(!request.raw.includes(session), "the session id itself never goes upstream");
    }
    assert.deepEqual(openAI.rejected, []);
  });
});
