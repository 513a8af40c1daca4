import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { eventually } from "../helpers/eventually";
import { startGateway, type Gateway } from "../helpers/start-gateway";

// Retention with short settings: old log rows and stored responses are swept (one process
// at a time in the many-instance pass), new ones are kept, quotas counted from the log
// still hold once their rows are gone, and requests keep being served during sweeps.

let gateway: Gateway;

before(async () => {
  gateway = await startGateway({ LOG_RETENTION: "3s", RESPONSE_RETENTION: "3s", RETENTION_SWEEP_INTERVAL: "1s" });
});
after(async () => {
  await gateway?.stop();
});

async function createToken(fields: Record<string, unknown>): Promise<{ id: string; key: string }> {
  const response = await gateway.admin("POST", "/api/admin/tokens", { name: "retention", ...fields });
  assert.equal(response.status, 201, JSON.stringify(response.body));
  return response.body;
}

const sdkFor = (key: string) => new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
const ask = (client: OpenAI) => client.chat.completions.create({ model: "mock-chat", messages: [{ role: "user", content: "hello" }], max_tokens: 10 });

async function logRowsOf(tokenId: string): Promise<{ id: string }[]> {
  const { body } = await gateway.admin("GET", "/api/admin/logs?limit=1000");
  return (body.data as { id: string; tokenId: string }[]).filter((row) => row.tokenId === tokenId);
}

/** Waits for one request's log row as soon as the request ends: with a 3 s retention, a row looked for later may be swept already. */
async function logged(tokenId: string, requestId: string | null | undefined): Promise<void> {
  assert.ok(requestId, "the answer names its request");
  await eventually(async () =>
    assert.ok(
      (await logRowsOf(tokenId)).some((row) => row.id === requestId),
      `the row of ${requestId}`,
    ),
  );
}

async function sweptRows(kind: string): Promise<number> {
  let total = 0;
  for (const instance of gateway.instances) {
    const text = await (await fetch(`${instance}/metrics`, { headers: { authorization: `Bearer ${gateway.adminKey}` } })).text();
    const match = new RegExp(`gateway_retention_deleted_rows_total\\{kind="${kind}"\\} (\\d+)`).exec(text);
    total += Number(match?.[1] ?? 0);
  }
  return total;
}

describe("retention", () => {
  test("old rows and stored responses are gone after the sweep, new ones kept, a lifetime quota still holds, no request fails", async () => {
    const background = sdkFor((await createToken({})).key);
    const perAnswer = (await ask(background)).usage!.total_tokens;
    // What one request reserves: the refusal of a token with no room says it.
    const tiny = await ask(sdkFor((await createToken({ quotaTokens: 1 })).key)).catch((error: unknown) => error);
    assert.ok(tiny instanceof OpenAI.RateLimitError);
    const reserved = Number(/up to (\d+) tokens/.exec(tiny.message)?.[1]);
    assert.ok(reserved > 0, tiny.message);

    // A lifetime quota with room for two answers, then not for a third.
    const quota = 2 * perAnswer + reserved - 1;
    const limited = await createToken({ quotaTokens: quota, quotaPeriod: "none" });
    const client = sdkFor(limited.key);
    await logged(limited.id, (await ask(client))._request_id);
    await logged(limited.id, (await ask(client))._request_id);
    const third = await ask(client).catch((error: unknown) => error);
    assert.ok(third instanceof OpenAI.RateLimitError);
    await logged(limited.id, third.requestID);
    const storer = sdkFor((await createToken({})).key);
    const stored = await storer.responses.create({ model: "mock-chat", input: "remember this" });
    assert.equal((await storer.responses.retrieve(stored.id)).id, stored.id);

    // Traffic all along, while sweeps run every second.
    let stop = false;
    const outcomes: string[] = [];
    const traffic = (async () => {
      while (!stop) {
        outcomes.push(
          await ask(background).then(
            () => "ok",
            (error: unknown) => String(error),
          ),
        );
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    try {
      await eventually(async () => assert.equal((await logRowsOf(limited.id)).length, 0), 15_000);
      // The response was stored after those rows were written: it expires on its own clock.
      await eventually(async () => {
        const gone = await storer.responses.retrieve(stored.id).catch((error: unknown) => error);
        assert.ok(gone instanceof OpenAI.NotFoundError, "an expired response is unknown");
      }, 15_000);

      // New ones are kept.
      const fresh = await background.responses.create({ model: "mock-chat", input: "new" });
      assert.equal((await background.responses.retrieve(fresh.id)).id, fresh.id);
      const newer = await createToken({});
      await logged(newer.id, (await ask(sdkFor(newer.key)))._request_id);

      // The quota's counters start again from the database: the swept rows' usage was rolled up.
      assert.equal((await gateway.admin("PATCH", `/api/admin/tokens/${limited.id}`, { name: "renamed" })).status, 200);
      const refused = await ask(client).catch((error: unknown) => error);
      assert.ok(refused instanceof OpenAI.RateLimitError, `the lifetime quota still holds after the sweep: ${String(refused)}`);
      assert.equal((await gateway.admin("GET", `/api/admin/tokens/${limited.id}`)).body.usedTokens, 2 * perAnswer);
      // An expired response answers 404 before a sweep deletes it; the sweep that took the
      // quota's rows may have run before the response was old enough, so wait for the next.
      await eventually(async () => assert.ok((await sweptRows("request_logs")) >= 3, "log rows swept"), 15_000);
      await eventually(async () => assert.ok((await sweptRows("responses")) >= 1, "stored responses swept"), 15_000);
      // Sweeps run every second all along: the traffic goes on until it has met many of them, however slow the machine.
      await eventually(async () => assert.ok(outcomes.length > 20, `${outcomes.length} requests during sweeps`), 30_000);
    } finally {
      stop = true;
      await traffic;
    }
    assert.deepEqual(
      outcomes.filter((outcome) => outcome !== "ok"),
      [],
      "no request failed during sweeps",
    );
  });
});
