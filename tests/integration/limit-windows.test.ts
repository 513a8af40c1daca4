import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { eventually } from "../helpers/eventually";
import { startGateway, type Gateway } from "../helpers/start-gateway";

// Plan-style limit windows on a token, through the OpenAI SDK: on one process (SQLite
// pass), and across two processes sharing PostgreSQL and Redis (many-instance pass).

let gateway: Gateway;

before(async () => {
  gateway = await startGateway();
  // A second model, so a per-model window can cap one while the other goes on.
  const channel = await gateway.admin("POST", "/api/admin/channels", { name: "second mock", type: "mock", models: ["mock-other"] });
  assert.equal(channel.status, 201);
});
after(async () => {
  await gateway?.stop();
});

async function createToken(fields: Record<string, unknown>): Promise<{ id: string; key: string }> {
  const response = await gateway.admin("POST", "/api/admin/tokens", { name: "windows", ...fields });
  assert.equal(response.status, 201, JSON.stringify(response.body));
  return response.body;
}

const sdkFor = (key: string) => new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
const ask = (client: OpenAI, model = "mock-chat") => client.chat.completions.create({ model, messages: [{ role: "user", content: "hello" }], max_tokens: 10 });

async function refusal(promise: Promise<unknown>): Promise<InstanceType<typeof OpenAI.RateLimitError>> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  assert.ok(error instanceof OpenAI.RateLimitError, `expected a 429, got ${String(error)}`);
  return error;
}

describe("limit windows", () => {
  test("a 10s window of 2 requests beside a weekly token window: the third is a 429 naming the window, served again after Retry-After", async () => {
    const token = await createToken({
      limits: [
        { window: "10s", requests: 2 },
        { window: "week", tokens: 1_000_000 },
      ],
    });
    const client = sdkFor(token.key);
    const first = await ask(client);
    await ask(client);
    const error = await refusal(ask(client));
    assert.equal(error.code, "limit_window_exceeded");
    assert.match(error.message, /10s window/);
    const retryAfter = Number(error.headers.get("retry-after"));
    assert.ok(retryAfter > 0 && retryAfter <= 10, `Retry-After ${retryAfter}`);

    // Settled as each answer's log entry is built, just after it was sent.
    let body: any;
    await eventually(async () => {
      body = (await gateway.admin("GET", `/api/admin/tokens/${token.id}`)).body;
      assert.equal(body.windows[1].used.tokens, 2 * first.usage!.total_tokens);
    });
    assert.equal(body.windows.length, 2);
    const [rolling, weekly] = body.windows;
    assert.equal(rolling.window, "10s");
    assert.equal(rolling.used.requests, 2, "the refused request is not counted");
    const resetsIn = Date.parse(rolling.resetsAt) - Date.now();
    assert.ok(resetsIn > 0 && resetsIn <= 10_000, `resets in ${resetsIn} ms`);
    assert.equal(weekly.window, "week");
    assert.equal(weekly.used.requests, 2);
    assert.equal(weekly.used.tokens, 2 * first.usage!.total_tokens, "settled to what the answers used");
    const monday = new Date(weekly.openedAt);
    assert.equal(monday.getUTCDay(), 1, "weeks start on Monday");
    assert.equal(Date.parse(weekly.resetsAt) - monday.getTime(), 7 * 86_400_000);

    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
    const again = await ask(client);
    assert.ok(again.choices[0]!.message.content);
  });

  test("a per-model window caps one model while another goes on", async () => {
    const token = await createToken({ limits: [{ window: "1h", requests: 1, models: ["mock-chat"] }] });
    const client = sdkFor(token.key);
    await ask(client, "mock-chat");
    const error = await refusal(ask(client, "mock-chat"));
    assert.match(error.message, /1h window for mock-chat/);
    for (let turn = 0; turn < 3; turn += 1) await ask(client, "mock-other");
    await refusal(ask(client, "mock-chat"));
  });

  test("50 concurrent requests never overspend a requests window or a tokens window", async () => {
    const perAnswer = (await ask(sdkFor((await createToken({})).key))).usage!.total_tokens;
    const byRequests = await createToken({ limits: [{ window: "1h", requests: 20 }] });
    const byTokens = await createToken({ limits: [{ window: "day", tokens: perAnswer * 10 }] });
    const run = (key: string) =>
      Promise.all(
        Array.from({ length: 50 }, async (_, index) => {
          const client = sdkFor(key);
          try {
            if (index % 4 === 0) {
              const stream = await client.chat.completions.create({ model: "mock-chat", messages: [{ role: "user", content: "hello" }], max_tokens: 10, stream: true });
              for await (const chunk of stream) void chunk;
            } else await ask(client);
            return "answered";
          } catch (error) {
            assert.ok(error instanceof OpenAI.RateLimitError, String(error));
            assert.equal(error.code, "limit_window_exceeded");
            return "refused";
          }
        }),
      );
    const [requestOutcomes, tokenOutcomes] = await Promise.all([run(byRequests.key), run(byTokens.key)]);
    assert.equal(requestOutcomes.filter((outcome) => outcome === "answered").length, 20);
    const answered = tokenOutcomes.filter((outcome) => outcome === "answered").length;
    assert.ok(answered >= 1 && answered <= 10, `answered ${answered}`);
    assert.ok(tokenOutcomes.includes("refused"));
    // Every answer settled: the window holds exactly what was used, within its limit.
    for (let instance = 0; instance < gateway.instances.length; instance += 1) await gateway.admin("GET", "/api/admin/logs?limit=1", undefined, instance);
    const { body } = await gateway.admin("GET", `/api/admin/tokens/${byTokens.id}`);
    assert.equal(body.usedTokens, answered * perAnswer);
    // The settlements were sent before those rows were written; their landing is waited on.
    await eventually(async () => {
      const { body } = await gateway.admin("GET", `/api/admin/tokens/${byTokens.id}`);
      assert.equal(body.windows[0].used.tokens, answered * perAnswer);
      assert.ok(body.windows[0].used.tokens <= perAnswer * 10);
    });
  });

  test("windows are validated with clear 400s, and users take them too", async () => {
    const badSpan = await gateway.admin("POST", "/api/admin/tokens", { name: "x", limits: [{ window: "5 hours", tokens: 1 }] });
    assert.equal(badSpan.status, 400);
    assert.match(badSpan.body.error.message, /window must be "day", "week", "month" or a duration/);
    const noUnit = await gateway.admin("POST", "/api/admin/tokens", { name: "x", limits: [{ window: "5h", models: ["mock-chat"] }] });
    assert.equal(noUnit.status, 400);
    assert.match(noUnit.body.error.message, /at least one of tokens, usd or requests/);

    const user = await gateway.admin("POST", "/api/admin/users", { email: "windows@example.com", password: "windows-password-1", role: "user" });
    assert.equal(user.status, 201, JSON.stringify(user.body));
    const limits = [
      { window: "5h", requests: 100 },
      { window: "month", usd: 50, models: ["mock-chat"] },
    ];
    const updated = await gateway.admin("PATCH", `/api/admin/users/${user.body.id}`, { limits });
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    assert.deepEqual(updated.body.limits, limits);
    const shown = await gateway.admin("GET", `/api/admin/users/${user.body.id}`);
    assert.deepEqual(
      shown.body.windows.map((window: { window: string; used: unknown }) => [window.window, window.used]),
      [
        ["5h", { tokens: 0, usd: 0, requests: 0 }],
        ["month", { tokens: 0, usd: 0, requests: 0 }],
      ],
    );
  });
});
