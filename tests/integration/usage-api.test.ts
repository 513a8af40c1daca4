import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { signIn } from "../helpers/console-sign-in";
import { eventually } from "../helpers/eventually";
import { startFakeOpenAIUpstream, UPSTREAM_API_KEY, type FakeUpstream } from "../helpers/fake-openai-upstream";
import { startGateway, type Gateway } from "../helpers/start-gateway";

// The usage API over real traffic: what the clients were told they used is what
// /api/admin/usage adds up, by day, hour, model and token, as JSON and as CSV;
// /api/usage shows a console user their own usage and nobody else's.

const ADMIN_EMAIL = "owner@example.com";
const ADMIN_PASSWORD = "correct horse battery";
const ALICE = { email: "alice@example.com", password: "alice-password-123" };
// Dollars per million tokens, so every request has a cost to add up.
const PRICE = { input: 1, output: 2, cachedInput: 0.5 };

let upstream: FakeUpstream;
let gateway: Gateway;
let aliceId: string;
let aliceToken: { id: string; key: string };
let sharedToken: { id: string; key: string };

/** One request as its client saw it. */
interface Sent {
  day: string;
  hour: string;
  token: string;
  user: string | null;
  model: string;
  status: number;
  prompt: number;
  completion: number;
  cached: number;
}
const sent: Sent[] = [];

type Row = Record<string, string | number | null>;

const costOf = (request: Sent) => ((request.prompt - request.cached) * PRICE.input + request.cached * PRICE.cachedInput + request.completion * PRICE.output) / 1e6;

/** What the API should answer for `groupBy`, added up from what the clients were sent. */
function expected(requests: Sent[], groupBy: (keyof Sent)[]): Row[] {
  const groups = new Map<string, Row>();
  for (const request of requests) {
    const key = JSON.stringify(groupBy.map((name) => request[name]));
    const row = groups.get(key) ?? {
      ...Object.fromEntries(groupBy.map((name) => [name, request[name]])),
      requests: 0,
      errors: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      cached_tokens: 0,
      cost_usd: 0,
    };
    row.requests = Number(row.requests) + 1;
    row.errors = Number(row.errors) + (request.status >= 400 ? 1 : 0);
    row.prompt_tokens = Number(row.prompt_tokens) + request.prompt;
    row.completion_tokens = Number(row.completion_tokens) + request.completion;
    row.cached_tokens = Number(row.cached_tokens) + request.cached;
    row.cost_usd = Number(row.cost_usd) + costOf(request);
    groups.set(key, row);
  }
  return sortRows([...groups.values()], groupBy);
}

function sortRows(rows: Row[], groupBy: readonly string[]): Row[] {
  const key = (row: Row) => JSON.stringify(groupBy.map((name) => row[name]));
  return [...rows].sort((a, b) => key(a).localeCompare(key(b)));
}

/** Rows compared with costs to a billionth of a dollar. */
function assertRows(actual: Row[], wanted: Row[], groupBy: readonly string[]) {
  const round = (rows: Row[]) => sortRows(rows, groupBy).map((row) => ({ ...row, cost_usd: Math.round(Number(row.cost_usd) * 1e9) }));
  assert.deepEqual(round(actual), round(wanted));
}

/** Every process writes the log rows it still holds (the usage API flushes its own), then the query runs. */
async function get(path: string, headers: Record<string, string>): Promise<Response> {
  for (const address of gateway.instances) {
    await fetch(`${address}/api/admin/usage`, { headers: { authorization: `Bearer ${gateway.adminKey}` } }).then((response) => response.arrayBuffer());
  }
  return fetch(`${gateway.url}${path}`, { headers });
}

async function adminUsage(query: string): Promise<{ status: number; body: any }> {
  const response = await get(`/api/admin/usage?${query}`, { authorization: `Bearer ${gateway.adminKey}` });
  return { status: response.status, body: await response.json() };
}

async function chat(token: { id: string; key: string }, user: string | null, model: string, content: string) {
  const client = new OpenAI({ apiKey: token.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  let status = 200;
  let usage: OpenAI.CompletionUsage | undefined;
  try {
    usage = (await client.chat.completions.create({ model, messages: [{ role: "user", content }] })).usage;
  } catch (error) {
    status = (error as { status: number }).status;
  }
  const now = new Date().toISOString();
  sent.push({
    day: now.slice(0, 10),
    hour: `${now.slice(0, 13)}:00:00.000Z`,
    token: token.id,
    user,
    model,
    status,
    prompt: usage?.prompt_tokens ?? 0,
    completion: usage?.completion_tokens ?? 0,
    cached: usage?.prompt_tokens_details?.cached_tokens ?? 0,
  });
}

const today = () => new Date().toISOString().slice(0, 10);
const span = () => `from=${new Date(Date.now() - 86_400_000).toISOString()}&to=${new Date(Date.now() + 3_600_000).toISOString()}`;

before(async () => {
  upstream = await startFakeOpenAIUpstream();
  gateway = await startGateway({ ADMIN_EMAIL, ADMIN_PASSWORD, ADMIN_API_KEY: "test-admin-key-0123456789" });
  const channel = await gateway.admin("POST", "/api/admin/channels", {
    name: "priced",
    type: "openai",
    baseUrl: upstream.baseUrl,
    apiKey: UPSTREAM_API_KEY,
    models: ["gpt-test", "gpt-other", "fake-error"],
    prices: { "*": PRICE },
  });
  assert.equal(channel.status, 201, JSON.stringify(channel.body));
  const alice = await gateway.admin("POST", "/api/admin/users", ALICE);
  assert.equal(alice.status, 201, JSON.stringify(alice.body));
  aliceId = alice.body.id;
  aliceToken = (await gateway.admin("POST", "/api/admin/tokens", { name: "alice's", userId: aliceId })).body;
  sharedToken = (await gateway.admin("POST", "/api/admin/tokens", { name: "shared" })).body;
  await chat(aliceToken, aliceId, "gpt-test", "a b c");
  await chat(aliceToken, aliceId, "gpt-test", "d e");
  await chat(aliceToken, aliceId, "gpt-other", "f");
  await chat(sharedToken, null, "gpt-test", "g h i j");
  await chat(sharedToken, null, "fake-error", "too long");
  assert.deepEqual(
    sent.map((request) => request.status),
    [200, 200, 200, 200, 400],
  );
});

after(async () => {
  await gateway?.stop();
  await upstream?.close();
});

describe("GET /api/admin/usage", () => {
  test("by day, model and token adds up to what the clients were sent", async () => {
    await eventually(async () => {
      const { status, body } = await adminUsage(`${span()}&group_by=day,model,token`);
      assert.equal(status, 200, JSON.stringify(body));
      assertRows(body.data, expected(sent, ["day", "model", "token"]), ["day", "model", "token"]);
    });
    const { body } = await adminUsage(`${span()}&group_by=day,model,token`);
    assert.deepEqual(Object.keys(body.data[0]), ["day", "model", "token", "requests", "errors", "prompt_tokens", "completion_tokens", "cached_tokens", "cost_usd"]);
    assert.ok(body.data.every((row: Row) => row.day === today() || sent.some((request) => request.day === row.day)));
    assert.ok(
      body.data.every((row: Row) => Number(row.cost_usd) > 0 || row.model === "fake-error"),
      "priced requests have a cost",
    );
  });

  test("by token, by user and by hour; no group_by is one total row; filters narrow it", async () => {
    await eventually(async () => assertRows((await adminUsage(`${span()}&group_by=token`)).body.data, expected(sent, ["token"]), ["token"]));
    assertRows((await adminUsage(`${span()}&group_by=user`)).body.data, expected(sent, ["user"]), ["user"]);
    const hours = (await adminUsage(`${span()}&group_by=hour`)).body.data as Row[];
    assertRows(hours, expected(sent, ["hour"]), ["hour"]);
    assert.match(String(hours[0]!.hour), /^\d{4}-\d{2}-\d{2}T\d{2}:00:00\.000Z$/);
    const total = (await adminUsage(span())).body.data;
    assertRows(total, expected(sent, []), []);
    assert.equal(total[0].errors, 1, "the upstream's 400 is an error");
    const shared = sent.filter((request) => request.token === sharedToken.id);
    assertRows((await adminUsage(`${span()}&group_by=model&token=${sharedToken.id}`)).body.data, expected(shared, ["model"]), ["model"]);
    const gptTest = sent.filter((request) => request.model === "gpt-test");
    assertRows((await adminUsage(`${span()}&group_by=token&model=gpt-test`)).body.data, expected(gptTest, ["token"]), ["token"]);
    // A span before any traffic: nothing grouped, and a total of zeros.
    const before = "from=2020-01-01T00:00:00Z&to=2020-01-02T00:00:00Z";
    assert.deepEqual((await adminUsage(`${before}&group_by=day`)).body.data, []);
    assert.deepEqual((await adminUsage(before)).body.data, [{ requests: 0, errors: 0, prompt_tokens: 0, completion_tokens: 0, cached_tokens: 0, cost_usd: 0 }]);
  });

  test("as CSV: the same columns with a header row, as a download", async () => {
    const response = await get(`/api/admin/usage?${span()}&group_by=model,token&format=csv`, { authorization: `Bearer ${gateway.adminKey}` });
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type") ?? "", /^text\/csv/);
    assert.match(response.headers.get("content-disposition") ?? "", /^attachment; filename="usage-.+\.csv"$/);
    const [header, ...lines] = (await response.text()).trimEnd().split("\r\n");
    assert.equal(header, "model,token,requests,errors,prompt_tokens,completion_tokens,cached_tokens,cost_usd");
    const wanted = expected(sent, ["model", "token"]);
    const rows = lines.map((line) => {
      const [model, token, ...numbers] = line.split(",");
      const [requests, errors, prompt, completion, cached, cost] = numbers.map(Number);
      return { model, token, requests, errors, prompt_tokens: prompt, completion_tokens: completion, cached_tokens: cached, cost_usd: cost } as Row;
    });
    assertRows(rows, wanted, ["model", "token"]);
  });

  test("refuses bad parameters with a 400 naming the parameter, and callers without the admin key", async () => {
    const cases: [string, string][] = [
      ["group_by=day,week", "group_by"],
      ["from=last-tuesday", "from"],
      ["to=2025-01-01T10:00:00", "to"],
      ["from=2025-02-01T00:00:00Z&to=2025-01-01T00:00:00Z", "from"],
      ["from=2024-01-01T00:00:00Z&to=2025-01-01T00:00:00Z&group_by=hour", "group_by"],
      ["format=xlsx", "format"],
    ];
    for (const [query, param] of cases) {
      const { status, body } = await adminUsage(query);
      assert.equal(status, 400, query);
      assert.equal(body.error.param, param, query);
      assert.equal(body.error.type, "invalid_request_error", query);
    }
    const anonymous = await fetch(`${gateway.url}/api/admin/usage`);
    assert.equal(anonymous.status, 401);
    const alice = (await signIn(gateway.url, ALICE.email, ALICE.password))!;
    assert.equal((await fetch(`${gateway.url}/api/admin/usage`, { headers: { cookie: alice } })).status, 403, "a non-admin's session");
  });
});

describe("GET /api/usage", () => {
  test("answers 401 in JSON without a session", async () => {
    const response = await fetch(`${gateway.url}/api/usage?group_by=day`);
    assert.equal(response.status, 401);
    assert.match(response.headers.get("content-type") ?? "", /json/);
    assert.ok((await response.json()).error.message);
  });

  test("shows a user their own usage only, whatever they group by", async () => {
    const cookie = (await signIn(gateway.url, ALICE.email, ALICE.password))!;
    assert.ok(cookie, "alice signed in");
    const own = sent.filter((request) => request.user === aliceId);
    await eventually(async () => {
      const response = await get(`/api/usage?${span()}&group_by=token,model`, { cookie });
      assert.equal(response.status, 200);
      assertRows(((await response.json()) as { data: Row[] }).data, expected(own, ["token", "model"]), ["token", "model"]);
    });
    const byUser = (await (await get(`/api/usage?${span()}&group_by=user`, { cookie })).json()) as { data: Row[] };
    assertRows(byUser.data, expected(own, ["user"]), ["user"]);
    // Another token's id as a filter finds nothing of theirs; another user's id is refused.
    const other = (await (await get(`/api/usage?${span()}&group_by=model&token=${sharedToken.id}`, { cookie })).json()) as { data: Row[] };
    assert.deepEqual(other.data, []);
    const refused = await get(`/api/usage?${span()}&user=someone-else`, { cookie });
    assert.equal(refused.status, 403);
    assert.equal(((await refused.json()) as { error: { param: string } }).error.param, "user");
    const csv = await get(`/api/usage?${span()}&group_by=model&format=csv`, { cookie });
    assert.match(csv.headers.get("content-type") ?? "", /^text\/csv/);
    assert.equal((await csv.text()).split("\r\n")[0], "model,requests,errors,prompt_tokens,completion_tokens,cached_tokens,cost_usd");
    assert.equal((await get("/api/usage?group_by=month", { cookie })).status, 400);
  });

  test("an admin's session there sees the admin's own usage, not everyone's", async () => {
    const cookie = (await signIn(gateway.url, ADMIN_EMAIL, ADMIN_PASSWORD))!;
    assert.ok(cookie, "the admin signed in");
    const body = (await (await get(`/api/usage?${span()}`, { cookie })).json()) as { data: Row[] };
    assert.deepEqual(body.data, [{ requests: 0, errors: 0, prompt_tokens: 0, completion_tokens: 0, cached_tokens: 0, cost_usd: 0 }]);
  });
});
