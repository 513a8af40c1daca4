import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { eventually } from "../helpers/eventually";
import { FAULTS, startFaultUpstream, type Fault, type FaultUpstream } from "../helpers/fault-upstream";
import { anthropicFacade, geminiFacade, openAIFacade, type ClientFacade } from "../helpers/sdk-clients";
import { startGateway, type Gateway } from "../helpers/start-gateway";

// Every upstream fault, with and without a fallback channel, streaming and not, for an
// OpenAI, an Anthropic and a Gemini client: what the client gets, and what the log says.

const UPSTREAM_KEY = "sk-upstream-fault-0123456789";
const FALLBACK_REPLY = "ok from the fallback";
let gateway: Gateway;
let faulty: FaultUpstream;
let fallback: FaultUpstream;
let clients: ClientFacade[];

/** The HTTP status each SDK reports when the faulty channel is the only one. */
const SOLO_STATUS: Record<(typeof FAULTS)[number], number> = {
  "http-500": 500,
  "http-429": 429,
  reset: 502,
  "no-headers": 504,
  "stall-body": 504,
  "stall-stream": 504, // non-streamed; a started stream ends with an in-stream error instead
  "malformed-json": 502,
  "malformed-sse": 502,
};

function model(fault: Fault, client: string, stream: boolean, withFallback: boolean): string {
  return `${fault}.${client}.${stream ? "stream" : "whole"}.${withFallback ? "fallback" : "solo"}`;
}

before(async () => {
  faulty = await startFaultUpstream(UPSTREAM_KEY);
  fallback = await startFaultUpstream(UPSTREAM_KEY, { reply: FALLBACK_REPLY, healthy: true });
  gateway = await startGateway({
    UPSTREAM_TIMEOUT_MS: "700",
    ROUTING_BACKOFF_MS: "0",
    // Each case is its own model; keep the channel-wide circuit out of this test's way.
    CIRCUIT_CONSECUTIVE_FAILURES: "100000",
    CIRCUIT_MIN_REQUESTS: "100000",
  });
  const faults: Fault[] = [...FAULTS];
  const all = ["openai", "anthropic", "gemini"].flatMap((client) =>
    faults.flatMap((fault) => [true, false].flatMap((stream) => [true, false].map((withFallback) => model(fault, client, stream, withFallback)))),
  );
  all.push("http-429.cool-down.fallback");
  const created = await gateway.admin("POST", "/api/admin/channels", { type: "openai", name: "faulty", baseUrl: faulty.baseUrl, apiKey: UPSTREAM_KEY, models: all, priority: 10 });
  assert.equal(created.status, 201);
  const fallbackModels = all.filter((name) => name.endsWith(".fallback"));
  assert.equal(
    (await gateway.admin("POST", "/api/admin/channels", { type: "openai", name: "fallback", baseUrl: fallback.baseUrl, apiKey: UPSTREAM_KEY, models: fallbackModels })).status,
    201,
  );
  const key = (await gateway.admin("POST", "/api/admin/tokens", { name: "faults" })).body.key as string;
  clients = [openAIFacade(gateway.url, key), anthropicFacade(gateway.url, key), geminiFacade(gateway.url, key)];
});

after(async () => {
  await gateway?.stop();
  await faulty?.close();
  await fallback?.close();
});

async function logRow(modelName: string) {
  const { body } = await gateway.admin("GET", "/api/admin/logs?limit=1000");
  const rows = (body.data as { model: string }[]).filter((row) => row.model === modelName);
  assert.equal(rows.length, 1, `exactly one log row for ${modelName}`);
  return rows[0] as unknown as {
    status: number;
    errorMessage: string | null;
    channelId: string;
    attempts: { channelName: string; status: number; error: string | null }[];
  };
}

function statusOf(error: unknown): number | undefined {
  return (error as { status?: number; code?: number }).status ?? (error as { code?: number }).code;
}

for (const clientName of ["openai", "anthropic", "gemini"] as const) {
  describe(`${clientName} client, upstream faults`, () => {
    const client = () => clients.find((facade) => facade.name === clientName)!;
    for (const fault of FAULTS) {
      for (const stream of [false, true]) {
        const startedStream = fault === "stall-stream" && stream;
        test(`${fault}, ${stream ? "streamed" : "whole"}, with a fallback channel: ${startedStream ? "error event after the partial answer" : "the fallback answers"}`, async () => {
          const name = `${fault}.${clientName}.${stream ? "stream" : "whole"}.fallback`;
          if (startedStream) {
            // The first bytes already reached the client: no failover, an in-stream error instead.
            await assert.rejects(client().ask(name, "hello", { stream, maxTokens: 50 }));
            const row = await logRow(name);
            assert.equal(row.status, 200);
            assert.match(row.errorMessage ?? "", /did not send more|in time/);
            assert.equal(row.attempts.length, 1);
            assert.equal(fallback.calls.get(name), undefined);
            return;
          }
          const answer = await client().ask(name, "hello", { stream, maxTokens: 50 });
          assert.equal(answer.text, FALLBACK_REPLY);
          const row = await logRow(name);
          assert.equal(row.status, 200);
          assert.equal(row.errorMessage, null);
          assert.deepEqual(
            row.attempts.map((attempt) => attempt.channelName),
            ["faulty", "fallback"],
          );
          assert.ok(row.attempts[0]!.error, "the failed attempt says why");
          assert.equal(row.attempts[1]!.error, null);
        });

        test(`${fault}, ${stream ? "streamed" : "whole"}, no fallback: ${startedStream ? "in-stream error" : `HTTP ${SOLO_STATUS[fault]}`}`, async () => {
          const name = `${fault}.${clientName}.${stream ? "stream" : "whole"}.solo`;
          const error = await client()
            .ask(name, "hello", { stream, maxTokens: 50 })
            .then(
              () => assert.fail("expected an error"),
              (thrown: unknown) => thrown,
            );
          const row = await logRow(name);
          assert.equal(row.attempts.length, 1);
          assert.ok(row.errorMessage, "the row says what went wrong");
          if (startedStream) {
            assert.equal(row.status, 200, "the client already had a 200");
            return;
          }
          assert.equal(statusOf(error), SOLO_STATUS[fault], String(error));
          assert.equal(row.status, SOLO_STATUS[fault]);
        });
      }
    }
  });
}

describe("failover bookkeeping", () => {
  test("an upstream 429 with Retry-After cools that channel and model down", async () => {
    const name = "http-429.cool-down.fallback";
    const coolingIn = async (instance: number) => {
      const { body } = await gateway.admin("GET", "/api/admin/channels", undefined, instance);
      return (body.data as { name: string; state: { models: Record<string, { coolDownUntil: number | null }> } }[]).find((channel) => channel.name === "faulty")!.state.models[name]
        ?.coolDownUntil;
    };
    for (const round of [1, 2, 3]) {
      const answer = await clients[round % 3]!.ask(name, "again", { stream: round === 2 });
      assert.equal(answer.text, FALLBACK_REPLY);
      if (round > 1) continue;
      // Every process has heard of the cool-down (a broadcast, with two) before the next round.
      for (let instance = 0; instance < gateway.instances.length; instance += 1) {
        await eventually(async () => assert.ok(await coolingIn(instance), `process ${instance} knows the cool-down`));
      }
    }
    assert.equal(faulty.calls.get(name), 1, "after its 429 the cooling channel was skipped");
    const { body } = await gateway.admin("GET", "/api/admin/channels");
    const state = (body.data as { name: string; state: { models: Record<string, { coolDownUntil: number }> } }[]).find((channel) => channel.name === "faulty")!.state;
    const until = state.models[name]!.coolDownUntil;
    assert.ok(until > Date.now() + 25_000 && until <= Date.now() + 31_000, "for the upstream's Retry-After (30 s)");
  });
});
