import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { startGateway, type Gateway } from "../helpers/start-gateway";

// Quotas and rate limits that hold under concurrency: on one process (SQLite pass), and
// across two processes sharing PostgreSQL and Redis (the many-instance pass).

let gateway: Gateway;

before(async () => {
  gateway = await startGateway();
});
after(async () => {
  await gateway?.stop();
});

async function createToken(fields: Record<string, unknown>): Promise<{ id: string; key: string }> {
  const response = await gateway.admin("POST", "/api/admin/tokens", { name: "concurrency", ...fields });
  assert.equal(response.status, 201);
  return response.body;
}

async function spent(tokenId: string): Promise<number> {
  for (let instance = 0; instance < gateway.instances.length; instance += 1) await gateway.admin("GET", "/api/admin/logs?limit=1", undefined, instance);
  const { body } = await gateway.admin("GET", `/api/admin/tokens/${tokenId}`);
  return body.usedTokens as number;
}

describe("quota and rate limits under concurrency", () => {
  test("200 concurrent requests, a quarter streamed, against a quota for 100 answers spend no more than the quota", async () => {
    const sdkFor = (key: string) => new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    // One answer's real cost, measured through an unlimited token.
    const probe = await sdkFor((await createToken({})).key).chat.completions.create({
      model: "mock-chat",
      messages: [{ role: "user", content: "hello" }],
      max_tokens: 10,
    });
    const perAnswer = probe.usage!.total_tokens;
    const quota = perAnswer * 100;
    const token = await createToken({ quotaTokens: quota });
    const client = sdkFor(token.key);
    const outcomes = await Promise.all(
      Array.from({ length: 200 }, async (_, index) => {
        const params = { model: "mock-chat", messages: [{ role: "user" as const, content: "hello" }], max_tokens: 10 };
        try {
          if (index % 4 === 0) {
            const stream = await client.chat.completions.create({ ...params, stream: true });
            for await (const chunk of stream) void chunk;
          } else {
            await client.chat.completions.create(params);
          }
          return "answered";
        } catch (error) {
          assert.ok(error instanceof OpenAI.RateLimitError, String(error));
          assert.equal(error.code, "insufficient_quota");
          return "refused";
        }
      }),
    );
    const answered = outcomes.filter((outcome) => outcome === "answered").length;
    assert.ok(answered >= 1 && answered <= 100, `answered ${answered}`);
    assert.ok(outcomes.includes("refused"));
    const used = await spent(token.id);
    assert.ok(used <= quota, `spent ${used} of ${quota}`);
    assert.equal(used, answered * perAnswer, "every answer is charged, once");
  });

  test("a requests-per-minute limit holds across the whole deployment", async () => {
    const token = await createToken({ rpm: 30 });
    const statuses = await Promise.all(
      Array.from({ length: 60 }, () =>
        fetch(`${gateway.url}/v1/chat/completions`, {
          method: "POST",
          headers: { authorization: `Bearer ${token.key}`, "content-type": "application/json", connection: "close" },
          body: JSON.stringify({ model: "mock-chat", messages: [{ role: "user", content: "hi" }], max_tokens: 2 }),
        }).then(async (response) => {
          if (response.status === 429) assert.ok(Number(response.headers.get("retry-after")) >= 1);
          await response.arrayBuffer();
          return response.status;
        }),
      ),
    );
    assert.equal(statuses.filter((status) => status === 200).length, 30);
    assert.equal(statuses.filter((status) => status === 429).length, 30);
  });
});
