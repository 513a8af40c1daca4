import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { eventually } from "../helpers/eventually";
import { startFaultUpstream, type FaultUpstream } from "../helpers/fault-upstream";
import { sharedServices, startGateway, type Gateway } from "../helpers/start-gateway";

// Strategies within a priority tier, measured on real traffic: two loopback upstreams for
// one model, one slower than the other, through the OpenAI SDK and a real gateway.

const KEY = "sk-strategy-upstream-0123456789";
let gateway: Gateway;
let client: OpenAI;
const upstreams: FaultUpstream[] = [];

async function upstream(delayMs: number, hold?: (model: string) => Promise<unknown> | undefined): Promise<FaultUpstream> {
  const started = await startFaultUpstream(KEY, { healthy: true, delayMs, hold, reply: `answered after ${delayMs} ms` });
  upstreams.push(started);
  return started;
}

const callsFor = (fake: FaultUpstream, model: string) => fake.calls.get(model) ?? 0;

/**
 * The model's record, then its channels, all written through the first process. With two
 * processes, the second hears of them in that order, so once it shows the channels it routes
 * by the strategy too (a request sent earlier could be routed there by the default strategy).
 */
async function serve(model: string, strategy: string, fakes: FaultUpstream[]) {
  assert.equal((await gateway.admin("POST", "/api/admin/models", { name: model, strategy }, 0)).status, 201);
  for (const [index, fake] of fakes.entries()) {
    const created = await gateway.admin("POST", "/api/admin/channels", { name: `${model}-${index}`, type: "openai", baseUrl: fake.baseUrl, apiKey: KEY, models: [model] }, 0);
    assert.equal(created.status, 201, JSON.stringify(created.body));
  }
  for (const instance of gateway.instances.keys()) {
    await eventually(async () => {
      const listed = (await gateway.admin("GET", "/api/admin/models", undefined, instance)).body.data.find((entry: any) => entry.name === model);
      assert.equal(listed?.channels.length, fakes.length, `process ${instance} serves ${model} through its channels`);
    });
  }
}

const ask = (model: string) => client.chat.completions.create({ model, messages: [{ role: "user", content: "hi" }] });

before(async () => {
  gateway = await startGateway();
  const key = (await gateway.admin("POST", "/api/admin/tokens", { name: "strategies" })).body.key;
  client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
});

after(async () => {
  await gateway?.stop();
  await Promise.all(upstreams.map((fake) => fake.close()));
});

describe("routing strategies", () => {
  test("latency: after 10 warm-up requests, at least 80% of 100 sequential requests go to the channel 300 ms faster", async (t) => {
    const fast = await upstream(0);
    const slow = await upstream(300);
    await serve("latency-model", "latency", [slow, fast]);
    for (let index = 0; index < 10; index += 1) await ask("latency-model");
    const before = callsFor(fast, "latency-model");
    for (let index = 0; index < 100; index += 1) assert.equal((await ask("latency-model")).model, "latency-model");
    const share = (callsFor(fast, "latency-model") - before) / 100;
    t.diagnostic(`share of the fast channel: ${share}`);
    assert.ok(share >= 0.8, `share of the fast channel: ${share}`);
    assert.ok(callsFor(slow, "latency-model") > 0, "the slow channel was measured too");
  });

  test("least-busy: 20 concurrent slow requests are spread evenly", { timeout: 60_000 }, async (t) => {
    // No answer leaves before all 20 requests have reached the upstreams: all are in flight
    // while each is routed, however slowly the machine runs.
    let release = () => {};
    const allArrived = new Promise<void>((resolve) => (release = resolve));
    const hold = (model: string) => {
      if (model !== "busy-model") return undefined;
      if (callsFor(first, model) + callsFor(second, model) >= 20) release();
      return allArrived;
    };
    const first = await upstream(0, hold);
    const second = await upstream(0, hold);
    await serve("busy-model", "least-busy", [first, second]);
    const answers = await Promise.all(Array.from({ length: 20 }, () => ask("busy-model")));
    assert.equal(answers.length, 20);
    const counts = [callsFor(first, "busy-model"), callsFor(second, "busy-model")];
    t.diagnostic(`requests per channel: ${counts.join(" / ")}`);
    // One process sees every request arrive; with two behind a balancer each spreads its own share.
    if (sharedServices()) assert.ok(Math.abs(counts[0]! - counts[1]!) <= 2, `requests per channel: ${counts}`);
    else assert.deepEqual(counts, [10, 10]);
  });

  test("weighted (no record): the slow channel keeps its share, as before", async () => {
    const fast = await upstream(0);
    const slow = await upstream(50);
    for (const [index, fake] of [fast, slow].entries()) {
      await gateway.admin("POST", "/api/admin/channels", { name: `plain-${index}`, type: "openai", baseUrl: fake.baseUrl, apiKey: KEY, models: ["plain-model"] });
    }
    for (let index = 0; index < 40; index += 1) await ask("plain-model");
    assert.ok(callsFor(slow, "plain-model") >= 8, `the slow channel got ${callsFor(slow, "plain-model")} of 40`);
  });

  test("cost: the cheapest channel by its price serves", async () => {
    const cheap = await upstream(0);
    const dear = await upstream(0);
    const prices = [{ "*": { input: 1, output: 2 } }, { "cost-model": { input: 3, output: 15 } }];
    for (const [index, fake] of [cheap, dear].entries()) {
      await gateway.admin("POST", "/api/admin/channels", {
        name: `cost-${index}`,
        type: "openai",
        baseUrl: fake.baseUrl,
        apiKey: KEY,
        models: ["cost-model"],
        prices: prices[index],
      });
    }
    await gateway.admin("POST", "/api/admin/models", { name: "cost-model", strategy: "cost" });
    for (let index = 0; index < 10; index += 1) await ask("cost-model");
    assert.equal(callsFor(cheap, "cost-model"), 10);
    assert.equal(callsFor(dear, "cost-model"), 0);
  });
});
