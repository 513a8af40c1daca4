import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { signIn } from "../helpers/console-sign-in";
import { eventually } from "../helpers/eventually";
import { startFakeOpenAIUpstream, UPSTREAM_API_KEY, type FakeUpstream } from "../helpers/fake-openai-upstream";
import { startGateway, type Gateway } from "../helpers/start-gateway";

// Teams (issue 33) through the official OpenAI SDK against a loopback upstream: a team's
// shared budget and its members' caps held under concurrency, team admins on /api/teams with
// their console session, end users' windows. On one process (SQLite pass), and on two
// processes sharing PostgreSQL and Redis behind a round-robin balancer (many-instance pass).

let gateway: Gateway;
let upstream: FakeUpstream;

/** $0.001 a token, in and out: an answer's cost is its total_tokens / 1000. */
const PRICE_PER_TOKEN = 0.001;
const MODEL = "team-model";

type Account = { id: string; email: string; password: string };
const accounts: Record<"lead" | "dev" | "ana" | "ben" | "outsider", Account> = {} as never;

before(async () => {
  upstream = await startFakeOpenAIUpstream();
  gateway = await startGateway();
  const channel = await gateway.admin("POST", "/api/admin/channels", {
    name: "priced",
    type: "openai",
    baseUrl: upstream.baseUrl,
    apiKey: UPSTREAM_API_KEY,
    models: [MODEL, "other-model"],
    prices: { "*": { input: PRICE_PER_TOKEN * 1_000_000, output: PRICE_PER_TOKEN * 1_000_000 } },
  });
  assert.equal(channel.status, 201, JSON.stringify(channel.body));
  for (const name of Object.keys({ lead: 1, dev: 1, ana: 1, ben: 1, outsider: 1 }) as (keyof typeof accounts)[]) {
    const email = `${name}@example.com`;
    const password = `${name}-password-123`;
    const created = await gateway.admin("POST", "/api/admin/users", { email, password });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    // New accounts start with the console's default limits, which bind their tokens too: lifted here.
    const lifted = await gateway.admin("PATCH", `/api/admin/users/${created.body.id}`, { rpm: null, quotaTokens: null, quotaPeriod: "none" });
    assert.equal(lifted.status, 200, JSON.stringify(lifted.body));
    accounts[name] = { id: created.body.id, email, password };
  }
});

after(async () => {
  await gateway?.stop();
  await upstream?.close();
});

const sdkFor = (key: string) => new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });

async function createTeam(body: Record<string, unknown>): Promise<any> {
  const created = await gateway.admin("POST", "/api/admin/teams", body);
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body;
}

async function addMember(teamId: string, userId: string, role: string, limits?: unknown[]): Promise<void> {
  const added = await gateway.admin("POST", `/api/admin/teams/${teamId}/members`, { userId, role, ...(limits ? { limits } : {}) });
  assert.equal(added.status, 201, JSON.stringify(added.body));
}

async function teamToken(teamId: string, userId: string, fields: Record<string, unknown> = {}): Promise<{ id: string; key: string }> {
  const created = await gateway.admin("POST", "/api/admin/tokens", { name: "team token", teamId, userId, ...fields });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body;
}

/** What a request did: its cost from the answer's usage, or the refusal's status and code. */
async function outcome(request: Promise<OpenAI.Chat.ChatCompletion>): Promise<{ usd: number } | { status: number; code: string | null | undefined }> {
  try {
    const answer = await request;
    return { usd: answer.usage!.total_tokens * PRICE_PER_TOKEN };
  } catch (error) {
    assert.ok(error instanceof OpenAI.APIError, String(error));
    return { status: error.status ?? 0, code: error.code };
  }
}

const ask = (client: OpenAI, extra: Record<string, unknown> = {}, options: OpenAI.RequestOptions = {}) =>
  client.chat.completions.create(
    { model: MODEL, messages: [{ role: "user", content: "hello" }], max_tokens: 10, ...extra } as never,
    options,
  ) as Promise<OpenAI.Chat.ChatCompletion>;

/** A session on the console, and a client for the routes it may use. */
async function session(account: Account) {
  const cookie = await signIn(gateway.url, account.email, account.password);
  assert.ok(cookie, `${account.email} signs in`);
  return async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${gateway.url}${path}`, {
      method,
      headers: { cookie, origin: gateway.url, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = (await response.json()) as any;
    if (typeof answer?.key === "string") gateway.secrets.add(answer.key);
    return { status: response.status, body: answer };
  };
}

describe("a team's shared budget and its members' caps", () => {
  test("concurrent requests from two members' tokens never spend past either member's $0.60 or the team's $1", async () => {
    const team = await createTeam({ name: "budget", models: [MODEL], limits: [{ window: "month", usd: 1 }] });
    await addMember(team.id, accounts.ana.id, "member", [{ window: "month", usd: 0.6 }]);
    await addMember(team.id, accounts.ben.id, "member", [{ window: "month", usd: 0.6 }]);
    const ana = sdkFor((await teamToken(team.id, accounts.ana.id)).key);
    const ben = sdkFor((await teamToken(team.id, accounts.ben.id)).key);

    const spent = { ana: 0, ben: 0 };
    const refusals: string[] = [];
    // Each answer's reservation is settled to its real cost after the answer: until then the
    // window holds the worst case, and a burst sent meanwhile could be refused for it.
    const settled = () =>
      eventually(async () => {
        const used = (await gateway.admin("GET", `/api/admin/teams/${team.id}`)).body.windows[0]?.used.usd ?? 0;
        assert.ok(Math.abs(used - (spent.ana + spent.ben)) < 1e-6, `team window ${used} vs ${spent.ana + spent.ben}`);
      });
    // Bursts from both members at once, each once the last is settled, until every request of a
    // burst is refused: then the team is spent.
    for (let round = 0; round < 20; round += 1) {
      await settled();
      const burst = await Promise.all([
        ...Array.from({ length: 16 }, () => outcome(ask(ana)).then((result) => ["ana", result] as const)),
        ...Array.from({ length: 16 }, () => outcome(ask(ben)).then((result) => ["ben", result] as const)),
      ]);
      for (const [member, result] of burst) {
        if ("usd" in result) spent[member] += result.usd;
        else refusals.push(`${result.status} ${result.code}`);
      }
      if (burst.every(([, result]) => !("usd" in result))) break;
    }
    assert.ok(refusals.length > 0, "the budget was reached");
    assert.deepEqual([...new Set(refusals)], ["429 limit_window_exceeded"]);
    assert.ok(spent.ana <= 0.6 + 1e-9, `ana spent $${spent.ana}`);
    assert.ok(spent.ben <= 0.6 + 1e-9, `ben spent $${spent.ben}`);
    const total = spent.ana + spent.ben;
    assert.ok(total <= 1 + 1e-9, `the team spent $${total}`);
    // Each member's cap leaves room the team does not: the team's window is what stopped them.
    assert.ok(total > 0.9, `the team's budget was used, not only the caps ($${total})`);

    // The team's and each member's windows show what was spent, settled to the answers' real cost.
    await eventually(async () => {
      const detail = (await gateway.admin("GET", `/api/admin/teams/${team.id}`)).body;
      assert.equal(detail.windows.length, 1);
      assert.equal(detail.windows[0].window, "month");
      assert.ok(Math.abs(detail.windows[0].used.usd - total) < 1e-6, `team window ${detail.windows[0].used.usd} vs ${total}`);
      assert.ok(Date.parse(detail.windows[0].resetsAt) > Date.now());
      const members = new Map(detail.members.map((member: any) => [member.userId, member]));
      assert.ok(Math.abs((members.get(accounts.ana.id) as any).windows[0].used.usd - spent.ana) < 1e-6);
      assert.ok(Math.abs((members.get(accounts.ben.id) as any).windows[0].used.usd - spent.ben) < 1e-6);
      assert.equal((members.get(accounts.ana.id) as any).role, "member");
      assert.equal(detail.tokens.length, 2);
    });
  });

  test("a team token's models are the intersection of the token's and the team's", async () => {
    const team = await createTeam({ name: "models", models: [MODEL] });
    await addMember(team.id, accounts.ana.id, "member");
    const client = sdkFor((await teamToken(team.id, accounts.ana.id)).key);
    assert.ok((await ask(client)).choices[0]!.message.content);
    const refused = await outcome(ask(client, { model: "other-model" }));
    assert.deepEqual(refused, { status: 403, code: "model_not_allowed" });
  });

  test("a team token is created by a member: anyone else, or an unknown team, is a clear 400", async () => {
    const team = await createTeam({ name: "strict" });
    const stranger = await gateway.admin("POST", "/api/admin/tokens", { name: "x", teamId: team.id, userId: accounts.outsider.id });
    assert.equal(stranger.status, 400);
    assert.equal(stranger.body.error.code, "not_a_team_member");
    const unknown = await gateway.admin("POST", "/api/admin/tokens", { name: "x", teamId: "no-such-team", userId: accounts.outsider.id });
    assert.equal(unknown.body.error.code, "team_not_found");
    const badRole = await gateway.admin("POST", `/api/admin/teams/${team.id}/members`, { userId: accounts.ana.id, role: "boss" });
    assert.equal(badRole.status, 400);
    assert.equal(badRole.body.error.param, "role");
    const badWindow = await gateway.admin("POST", "/api/admin/teams", { name: "w", limits: [{ window: "fortnight", usd: 1 }] });
    assert.equal(badWindow.status, 400);
    assert.match(badWindow.body.error.message, /window must be/);
  });
});

describe("team admins without platform rights", () => {
  test("a team admin creates and disables tokens through /api/teams, and gets 403 on another team and on the team's budget", async () => {
    const mine = await createTeam({ name: "mine", limits: [{ window: "month", usd: 5 }] });
    const theirs = await createTeam({ name: "theirs" });
    await addMember(mine.id, accounts.lead.id, "admin");
    await addMember(mine.id, accounts.dev.id, "member");
    await addMember(theirs.id, accounts.outsider.id, "owner");
    const lead = await session(accounts.lead);
    const dev = await session(accounts.dev);

    const listed = await lead("GET", "/api/teams");
    assert.equal(listed.status, 200);
    assert.deepEqual(
      listed.body.data.map((team: any) => [team.name, team.role]),
      [["mine", "admin"]],
    );

    const created = await lead("POST", `/api/teams/${mine.id}/tokens`, { name: "lead's app", limits: [{ window: "day", requests: 100 }] });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.teamId, mine.id);
    assert.equal(created.body.userId, accounts.lead.id, "the session's user creates it");
    const client = sdkFor(created.body.key);
    assert.ok((await ask(client)).choices[0]!.message.content);

    const disabled = await lead("PATCH", `/api/teams/${mine.id}/tokens/${created.body.id}`, { enabled: false });
    assert.equal(disabled.status, 200);
    assert.equal(disabled.body.enabled, false);
    assert.equal(JSON.stringify(disabled.body).includes(created.body.key), false, "the key is shown once");
    assert.deepEqual(await outcome(ask(client)), { status: 401, code: "invalid_api_key" });

    // Another team's routes, and the team's own limits and models, answer 403.
    for (const [method, path, body] of [
      ["GET", `/api/teams/${theirs.id}`, undefined],
      ["POST", `/api/teams/${theirs.id}/tokens`, { name: "sneak" }],
      ["POST", `/api/teams/${theirs.id}/members`, { userId: accounts.lead.id, role: "owner" }],
      ["PATCH", `/api/teams/${mine.id}`, { limits: [{ window: "month", usd: 1000 }] }],
      ["PATCH", `/api/teams/${mine.id}`, { models: [] }],
      ["PATCH", `/api/admin/teams/${mine.id}`, { limits: [{ window: "month", usd: 1000 }] }],
      ["POST", `/api/teams/${mine.id}/members`, { userId: accounts.outsider.id, role: "owner" }],
    ] as const) {
      const answer = await lead(method, path, body);
      assert.equal(answer.status, 403, `${method} ${path}: ${JSON.stringify(answer.body)}`);
      assert.equal(typeof answer.body.error.message, "string");
    }
    const team = (await gateway.admin("GET", `/api/admin/teams/${mine.id}`)).body;
    assert.deepEqual(team.limits, [{ window: "month", usd: 5 }], "the budget is unchanged");

    // The team admin manages members and their caps; a member only their own tokens.
    const capped = await lead("PATCH", `/api/teams/${mine.id}/members/${accounts.dev.id}`, { limits: [{ window: "month", usd: 1 }] });
    assert.equal(capped.status, 200, JSON.stringify(capped.body));
    assert.deepEqual(capped.body.limits, [{ window: "month", usd: 1 }]);
    const own = await dev("POST", `/api/teams/${mine.id}/tokens`, { name: "dev's app" });
    assert.equal(own.status, 201);
    assert.equal((await dev("PATCH", `/api/teams/${mine.id}/tokens/${created.body.id}`, { enabled: true })).status, 403);
    assert.equal((await dev("POST", `/api/teams/${mine.id}/members`, { userId: accounts.outsider.id, role: "member" })).status, 403);
    const devView = await dev("GET", `/api/teams/${mine.id}`);
    assert.equal(devView.status, 200);
    assert.equal(devView.body.role, "member");
    assert.deepEqual(
      devView.body.tokens.map((token: any) => token.id),
      [own.body.id],
      "a member sees their own team tokens",
    );
    assert.equal(devView.body.windows[0].window, "month", "and the team's usage totals");
    const bad = await lead("POST", `/api/teams/${mine.id}/tokens`, { name: "" });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.param, "name");
    assert.equal((await lead("DELETE", `/api/teams/${mine.id}/tokens/${own.body.id}`)).status, 200, "a team admin deletes any of the team's tokens");
  });

  test("the Playground chatting as a team token is held to the team's windows too", async () => {
    const team = await createTeam({ name: "playground", limits: [{ window: "1h", requests: 1 }] });
    await addMember(team.id, accounts.dev.id, "member");
    const token = await teamToken(team.id, accounts.dev.id);
    const cookie = await signIn(gateway.url, accounts.dev.email, accounts.dev.password);
    const playground = async () => {
      const response = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: "POST",
        headers: { cookie: cookie!, origin: gateway.url, "content-type": "application/json", "x-gateway-console": "1", "x-gateway-token-id": token.id },
        body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "hi" }], max_tokens: 10 }),
      });
      return { status: response.status, body: (await response.json()) as any };
    };
    assert.equal((await playground()).status, 200);
    const refused = await playground();
    assert.equal(refused.status, 429);
    assert.match(refused.body.error.message, /window of this key's team/);
  });

  test("a member leaving the team, or the team being deleted, disables its tokens (401)", async () => {
    const team = await createTeam({ name: "leaving" });
    await addMember(team.id, accounts.ana.id, "member");
    await addMember(team.id, accounts.ben.id, "member");
    const anaToken = await teamToken(team.id, accounts.ana.id);
    const benToken = await teamToken(team.id, accounts.ben.id);
    const ana = sdkFor(anaToken.key);
    const ben = sdkFor(benToken.key);
    assert.ok((await ask(ana)).choices[0]!.message.content);

    assert.equal((await gateway.admin("DELETE", `/api/admin/teams/${team.id}/members/${accounts.ana.id}`)).status, 200);
    // Every process has dropped the token by the time the removal answered.
    for (let round = 0; round < 4; round += 1) assert.deepEqual(await outcome(ask(ana)), { status: 401, code: "invalid_api_key" });
    assert.equal((await gateway.admin("GET", `/api/admin/tokens/${anaToken.id}`)).body.enabled, false);
    assert.ok((await ask(ben)).choices[0]!.message.content, "the other member's token still works");

    assert.equal((await gateway.admin("DELETE", `/api/admin/teams/${team.id}`)).status, 200);
    for (let round = 0; round < 4; round += 1) assert.deepEqual(await outcome(ask(ben)), { status: 401, code: "invalid_api_key" });
    assert.equal((await gateway.admin("GET", `/api/admin/tokens/${benToken.id}`)).body.enabled, false);
    assert.equal((await gateway.admin("GET", `/api/admin/teams/${team.id}`)).status, 404);
  });
});

describe("end users", () => {
  test("50 concurrent first requests from one new end user stay within its window", async () => {
    const token = await gateway.admin("POST", "/api/admin/tokens", { name: "app", endUserLimits: [{ window: "1h", requests: 5 }] });
    assert.equal(token.status, 201);
    const client = sdkFor(token.body.key);
    const results = await Promise.all(Array.from({ length: 50 }, () => outcome(ask(client, { user: "eve-first-burst" }))));
    const served = results.filter((result) => "usd" in result).length;
    assert.equal(served, 5, "exactly the window's requests are served");
    assert.ok(results.every((result) => "usd" in result || (result.status === 429 && result.code === "limit_window_exceeded")));
    // Another end user of the same token has a window of their own.
    assert.ok((await ask(client, { user: "someone-else" })).choices[0]!.message.content);
  });

  test("an end user named by body user, safety_identifier, metadata.user_id or x-end-user-id counts once per identity", async () => {
    const token = await gateway.admin("POST", "/api/admin/tokens", { name: "app", endUserLimits: [{ window: "day", requests: 4 }] });
    const client = sdkFor(token.body.key);
    const sam = "sam@customer.example";
    await ask(client, { user: sam });
    await ask(client, { safety_identifier: sam });
    await ask(client, { metadata: { user_id: sam } });
    await ask(client, {}, { headers: { "x-end-user-id": sam } });
    // The fifth, named any of the ways, is over sam's window.
    assert.deepEqual(await outcome(ask(client, {}, { headers: { "x-end-user-id": sam } })), { status: 429, code: "limit_window_exceeded" });
    assert.deepEqual(await outcome(ask(client, { safety_identifier: sam })), { status: 429, code: "limit_window_exceeded" });
    await assert.rejects(ask(client, { metadata: { user_id: sam } }), /the daily \(day\) window of this end user allows 4 requests/);
    assert.ok((await ask(client, { user: "tom" })).choices[0]!.message.content, "another end user is served");
    assert.ok((await ask(client)).choices[0]!.message.content, "a request naming no end user is the token's alone");

    await eventually(async () => {
      const listed = await gateway.admin("GET", `/api/admin/tokens/${token.body.id}/end-users`);
      assert.equal(listed.status, 200);
      const byName = new Map(listed.body.data.map((row: any) => [row.endUser, row]));
      assert.deepEqual([...byName.keys()].sort(), [sam, "tom"]);
      const row = byName.get(sam) as any;
      assert.equal(row.requests, 4);
      assert.ok(row.tokens > 0 && row.usd > 0);
      assert.equal(row.limits[0].window, "day");
      assert.equal(row.limits[0].used.requests, 4);
      assert.ok(Date.parse(row.limits[0].resetsAt) > Date.now());
    });
    assert.equal((await gateway.admin("GET", `/api/admin/tokens/${token.body.id}/end-users?limit=0`)).status, 400);
  });

  test("usage groups and filters by end user, for tokens with and without end-user windows, and the log rows name them", async () => {
    const token = await gateway.admin("POST", "/api/admin/tokens", { name: "plain app" });
    assert.equal(token.status, 201);
    const client = sdkFor(token.body.key);
    // Named each of the ways; Anthropic's metadata.user_id arrives through /v1/messages too.
    await ask(client, { user: "uma" });
    await ask(client, { safety_identifier: "uma" });
    await ask(client, {}, { headers: { "x-end-user-id": "vic" } });
    await ask(client, { metadata: { user_id: "vic" } });
    await ask(client, { metadata: { user_id: "vic" } });
    await ask(client);
    const long = "w".repeat(300);
    await ask(client, { user: long });
    await assert.rejects(ask(client, { model: "no-such-model", user: "uma" }), /does not exist|not found/i);

    const usage = async (query: string) => {
      const answer = await gateway.admin("GET", `/api/admin/usage?token=${token.body.id}&${query}`);
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      return answer.body.data as any[];
    };
    await eventually(async () => {
      const rows = await usage("group_by=end_user");
      const byName = Object.fromEntries(rows.map((row) => [row.end_user, row]));
      // Only requests that named someone; a refused one counts as a request and an error.
      assert.equal(rows.length, 3, JSON.stringify(rows));
      assert.deepEqual([byName.uma.requests, byName.uma.errors], [3, 1]);
      assert.deepEqual([byName.vic.requests, byName.vic.errors], [3, 0]);
      assert.ok(byName.vic.cost_usd > 0 && byName.vic.prompt_tokens > 0);
      const shortened = rows.find((row) => row.end_user.startsWith("www"));
      assert.equal(shortened.end_user.length, 256, "a long id is kept as its start and a digest");
      assert.equal(shortened.requests, 1);
      const [total] = await usage("");
      assert.equal(total.requests, 8, "the token's totals still hold every request");
    });
    assert.deepEqual(
      (await usage("end_user=vic&group_by=model")).map((row) => [row.model, row.requests]),
      [[MODEL, 3]],
    );
    const csv = await fetch(`${gateway.url}/api/admin/usage?token=${token.body.id}&group_by=end_user&format=csv`, { headers: { authorization: `Bearer ${gateway.adminKey}` } });
    assert.match(await csv.text(), /^end_user,requests,errors,.*\r\numa,3,1,/s);

    // The long id, asked for as the client sent it, finds its shortened rows.
    const [longRow] = await usage(`end_user=${long}`);
    assert.equal(longRow.requests, 1);
    const longLogs = await gateway.admin("GET", `/api/admin/logs?token=${token.body.id}&end_user=${long}`);
    assert.equal(longLogs.body.data.length, 1);
    const logs = await gateway.admin("GET", `/api/admin/logs?token=${token.body.id}&end_user=vic`);
    assert.equal(logs.status, 200);
    assert.deepEqual(
      logs.body.data.map((row: any) => row.endUser),
      ["vic", "vic", "vic"],
    );
  });

  test("a team's end-user windows bind every token of the team together", async () => {
    const team = await createTeam({ name: "app team", endUserLimits: [{ window: "1h", requests: 2 }] });
    await addMember(team.id, accounts.ana.id, "member");
    await addMember(team.id, accounts.ben.id, "member");
    const ana = sdkFor((await teamToken(team.id, accounts.ana.id)).key);
    const ben = sdkFor((await teamToken(team.id, accounts.ben.id)).key);
    await ask(ana, { user: "zoe" });
    await ask(ben, { user: "zoe" });
    assert.deepEqual(await outcome(ask(ana, { user: "zoe" })), { status: 429, code: "limit_window_exceeded" });
  });
});
