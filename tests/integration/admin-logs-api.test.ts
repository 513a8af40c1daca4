import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { startFakeOpenAIUpstream, UPSTREAM_API_KEY, type FakeUpstream } from "../helpers/fake-openai-upstream";
import { startGateway, type Gateway } from "../helpers/start-gateway";

// GET /api/admin/logs on the real server: keyset pages by cursor and the Logs filters.

interface LogRow {
  id: string;
  createdAt: string;
  tokenId: string | null;
  model: string | null;
  channelId: string | null;
  status: number;
  sessionHash: string | null;
}
interface LogPage {
  data: LogRow[];
  next_cursor: string | null;
}

let upstream: FakeUpstream;
let gateway: Gateway;
let channelId: string;
const tokens: { id: string; client: OpenAI }[] = [];

async function page(query: string): Promise<LogPage> {
  const response = await gateway.admin<LogPage>("GET", `/api/admin/logs?${query}`);
  assert.equal(response.status, 200, JSON.stringify(response.body));
  return response.body;
}

/** Every row of `query`, page by page; `between` runs after each page but the last. */
async function allPages(query: string, between?: () => Promise<void>): Promise<LogRow[]> {
  const rows: LogRow[] = [];
  let cursor: string | null = null;
  do {
    const answer: LogPage = await page(`${query}${cursor ? `&cursor=${cursor}` : ""}`);
    rows.push(...answer.data);
    cursor = answer.next_cursor;
    if (cursor) await between?.();
  } while (cursor);
  return rows;
}

const chat = (client: OpenAI, model: string, headers: Record<string, string> = {}) =>
  client.chat.completions.create({ model, messages: [{ role: "user", content: "hello" }] }, { headers }).then(
    () => "ok",
    () => "failed",
  );

before(async () => {
  upstream = await startFakeOpenAIUpstream();
  gateway = await startGateway();
  const channel = await gateway.admin("POST", "/api/admin/channels", {
    name: "fake",
    type: "openai",
    baseUrl: upstream.baseUrl,
    apiKey: UPSTREAM_API_KEY,
    models: ["gpt-test", "gpt-other", "fake-error", "fake-server-error"],
  });
  channelId = channel.body.id;
  for (const name of ["first", "second"]) {
    const token = (await gateway.admin("POST", "/api/admin/tokens", { name })).body;
    tokens.push({ id: token.id, client: new OpenAI({ apiKey: token.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 }) });
  }
  // 10 successes over two tokens and models, a 4xx, a 5xx, a session's two requests.
  for (let index = 0; index < 10; index += 1) await chat(tokens[index % 2]!.client, index % 3 === 0 ? "gpt-other" : "gpt-test");
  await chat(tokens[0]!.client, "fake-error");
  await chat(tokens[1]!.client, "fake-server-error");
  for (let turn = 0; turn < 2; turn += 1) await chat(tokens[1]!.client, "gpt-test", { "session-id": "agent-session-1" });
});

after(async () => {
  await gateway?.stop();
  await upstream?.close();
});

describe("GET /api/admin/logs", () => {
  test("pages by cursor return every row once, newest first, while requests keep arriving", async () => {
    const before = (await page("limit=1000")).data;
    assert.ok(before.length >= 14);
    assert.equal((await page("limit=1000")).next_cursor, null);
    let arrived = 0;
    const seen = await allPages("limit=3", async () => {
      arrived += 1;
      await chat(tokens[0]!.client, "gpt-test");
    });
    assert.ok(arrived >= 4);
    assert.deepEqual(
      seen.map((row) => row.id),
      before.map((row) => row.id),
    );
    for (const [index, row] of seen.entries()) {
      assert.match(row.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      if (index > 0) assert.ok(row.createdAt <= seen[index - 1]!.createdAt);
    }
    // The requests made meanwhile are on a fresh first page.
    assert.equal((await page("limit=1000")).data.length, before.length + arrived);
  });

  test("each filter keeps only its rows", async () => {
    const everything = (await page("limit=1000")).data;
    const [first, second] = tokens;
    const expectations: [string, (row: LogRow) => boolean][] = [
      [`token=${first!.id}`, (row) => row.tokenId === first!.id],
      [`token=${second!.id}&model=gpt-test`, (row) => row.tokenId === second!.id && row.model === "gpt-test"],
      ["model=gpt-other", (row) => row.model === "gpt-other"],
      [`channel=${channelId}`, (row) => row.channelId === channelId],
      ["status=2xx", (row) => row.status >= 200 && row.status < 300],
      ["status=4xx", (row) => row.status >= 400 && row.status < 500],
      ["status=5xx", (row) => row.status >= 500],
    ];
    for (const [query, keep] of expectations) {
      const expected = everything.filter(keep).map((row) => row.id);
      assert.ok(expected.length > 0, query);
      assert.deepEqual(
        (await allPages(`limit=2&${query}`)).map((row) => row.id),
        expected,
        query,
      );
    }
    const sessionRows = everything.filter((row) => row.sessionHash);
    assert.equal(sessionRows.length, 2);
    assert.deepEqual(
      (await page(`session=${sessionRows[0]!.sessionHash}`)).data.map((row) => row.id),
      sessionRows.map((row) => row.id),
    );
    assert.deepEqual((await page(`user=no-such-user`)).data, []);
    // from inclusive, to exclusive.
    const middle = everything[Math.floor(everything.length / 2)]!;
    const from = (await page(`limit=1000&from=${middle.createdAt}`)).data;
    assert.deepEqual(
      from.map((row) => row.id),
      everything.filter((row) => row.createdAt >= middle.createdAt).map((row) => row.id),
    );
    const to = (await page(`limit=1000&to=${middle.createdAt}`)).data;
    assert.deepEqual(
      to.map((row) => row.id),
      everything.filter((row) => row.createdAt < middle.createdAt).map((row) => row.id),
    );
  });

  test("a bad parameter is a 400 that names it", async () => {
    for (const [query, param] of [
      ["limit=0", "limit"],
      ["limit=1001", "limit"],
      ["limit=ten", "limit"],
      ["cursor=not-a-cursor", "cursor"],
      [`cursor=${Buffer.from('{"t":"soon","i":"x"}').toString("base64url")}`, "cursor"],
      ["from=yesterday", "from"],
      ["to=2025-13-45T00:00:00Z", "to"],
      ["from=2025-03-01T10:00", "from"],
      ["status=3xx", "status"],
      ["status=500", "status"],
    ] as const) {
      const response = await gateway.admin("GET", `/api/admin/logs?${query}`);
      assert.equal(response.status, 400, query);
      assert.equal(response.body.error.param, param, query);
      assert.equal(response.body.error.type, "invalid_request_error", query);
      assert.match(response.body.error.message, new RegExp(`^${param} `), query);
    }
  });
});
