import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { eventually } from "../helpers/eventually";
import { startGithubLikeServer, startToolsServer, type TestMcpServer } from "../helpers/mcp-test-servers";
import { startGateway, type Gateway } from "../helpers/start-gateway";

// The MCP gateway with the official SDK client, against two loopback SDK servers: listing,
// calling, errors, grants (absent, removed between calls), limits and the log rows.

const UPSTREAM_BEARER = "ghp_upstream_secret_0123456789";
let gateway: Gateway;
let github: TestMcpServer;
let tools: TestMcpServer;
let tokenId: string;
let tokenKey: string;

async function connect(path = "/mcp", key = tokenKey): Promise<Client> {
  const client = new Client({ name: "test-agent", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}${path}`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
  return client;
}

type LogRow = { endpoint: string; status: number; mcpServer: string | null; mcpTool: string | null; tokenId: string | null };
const mcpRows = async () => ((await gateway.admin("GET", "/api/admin/logs?limit=200")).body.data as LogRow[]).filter((row) => row.endpoint === "/mcp");

before(async () => {
  [github, tools] = await Promise.all([startGithubLikeServer(UPSTREAM_BEARER), startToolsServer()]);
  gateway = await startGateway();
  gateway.secrets.add(UPSTREAM_BEARER);
  const created = await gateway.admin("POST", "/api/admin/mcp-servers", { name: "github", url: github.url, headers: { Authorization: `Bearer ${UPSTREAM_BEARER}` } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.deepEqual(created.body.headers, ["Authorization"]);
  assert.equal((await gateway.admin("POST", "/api/admin/mcp-servers", { name: "tools", url: tools.url })).status, 201);
  const token = await gateway.admin("POST", "/api/admin/tokens", {
    name: "agent",
    limits: [{ window: "day", requests: 6 }],
    mcp: [{ server: "github" }, { server: "tools", tools: ["fail", "slow"] }],
  });
  assert.equal(token.status, 201, JSON.stringify(token.body));
  tokenId = token.body.id;
  tokenKey = token.body.key;
  gateway.secrets.add(tokenKey);
});

after(async () => {
  await gateway?.stop();
  await Promise.all([github?.close(), tools?.close()]);
});

describe("MCP gateway", () => {
  test("the admin API never answers a header value, and lists a server's tools live", async () => {
    const list = await gateway.admin("GET", "/api/admin/mcp-servers");
    assert.ok(!JSON.stringify(list.body).includes(UPSTREAM_BEARER));
    const github = list.body.data.find((server: { name: string }) => server.name === "github");
    const live = await gateway.admin("GET", `/api/admin/mcp-servers/${github.id}/tools`);
    assert.equal(live.status, 200, JSON.stringify(live.body));
    assert.deepEqual(live.body.data.map((tool: { name: string }) => tool.name).sort(), ["add", "echo"]);
    const bad = await gateway.admin("POST", "/api/admin/mcp-servers", { name: "Bad Name", url: github.url });
    assert.equal(bad.status, 400);
  });

  test("a server URL that leads back to the gateway is refused on save", async () => {
    const { status, body } = await gateway.admin("POST", "/api/admin/mcp-servers", { name: "self", url: `${gateway.url}/mcp` });
    assert.equal(status, 400, JSON.stringify(body));
    assert.match(JSON.stringify(body), /leads back to this gateway/);
  });

  test("tools/list prefixes granted tools, schemas unchanged, and leaves out tools not granted", async () => {
    const client = await connect();
    const { tools: listed } = await client.listTools();
    const names = listed.map((tool) => tool.name).sort();
    assert.deepEqual(names, ["github__add", "github__echo", "tools__fail", "tools__slow"]);
    const echo = listed.find((tool) => tool.name === "github__echo")!;
    assert.deepEqual(Object.keys((echo.inputSchema as { properties: object }).properties), ["text"]);
    assert.ok(echo.outputSchema);
    await client.close();
  });

  test("tools/call returns the upstream's result unchanged, with its credentials sent upstream", async () => {
    const client = await connect();
    const result = await client.callTool({ name: "github__echo", arguments: { text: "hello" } });
    assert.deepEqual(result.content, [{ type: "text", text: "hello" }]);
    assert.deepEqual(result.structuredContent, { echoed: "hello" });
    assert.equal(github.calls.at(-1)?.authorization, `Bearer ${UPSTREAM_BEARER}`);
    const failed = await client.callTool({ name: "tools__fail", arguments: {} });
    assert.equal(failed.isError, true);
    assert.deepEqual(failed.content, [{ type: "text", text: "the disk is full" }]);
    await client.close();
  });

  test("progress from the upstream reaches the client", async () => {
    const client = await connect();
    const seen: number[] = [];
    const result = await client.callTool({ name: "tools__slow", arguments: { steps: 3 } }, undefined, { onprogress: (progress) => seen.push(progress.progress) });
    assert.deepEqual(result.content, [{ type: "text", text: "done in 3" }]);
    assert.deepEqual(seen, [1, 2, 3]);
    await client.close();
  });

  test("a tool not granted is refused and never forwarded", async () => {
    const client = await connect();
    const before = tools.calls.length;
    await assert.rejects(client.callTool({ name: "tools__secret_admin", arguments: {} }), /may not use the tool "tools__secret_admin"/);
    assert.equal(tools.calls.length, before);
    assert.ok(!tools.calls.some((call) => call.tool === "secret_admin"));
    await client.close();
  });

  test("/mcp/{server} serves one server's tools under their own names", async () => {
    const client = await connect("/mcp/github");
    const { tools: listed } = await client.listTools();
    assert.deepEqual(listed.map((tool) => tool.name).sort(), ["add", "echo"]);
    const result = await client.callTool({ name: "add", arguments: { a: 2, b: 3 } });
    assert.deepEqual(result.content, [{ type: "text", text: "5" }]);
    await client.close();
  });

  test("one log row per tools/call, with its server and tool; lists and initialize write none", async () => {
    await eventually(async () => {
      const rows = await mcpRows();
      // echo, fail, slow, add (/mcp/github) and the refused secret_admin.
      assert.equal(rows.length, 5, JSON.stringify(rows));
      assert.ok(rows.some((row) => row.mcpServer === "github" && row.mcpTool === "echo" && row.status === 200 && row.tokenId === tokenId));
      assert.ok(rows.some((row) => row.mcpServer === "tools" && row.mcpTool === "fail"));
      assert.ok(rows.some((row) => row.status === 403 && row.mcpServer === null));
    });
  });

  test("a grant removed between two calls takes effect on the next call, in the same session", async () => {
    const client = await connect();
    await client.callTool({ name: "github__add", arguments: { a: 1, b: 1 } });
    const removed = await gateway.admin("PATCH", `/api/admin/tokens/${tokenId}`, { mcp: [{ server: "tools", tools: ["fail", "slow"] }] });
    assert.equal(removed.status, 200, JSON.stringify(removed.body));
    const before = github.calls.length;
    await assert.rejects(client.callTool({ name: "github__add", arguments: { a: 1, b: 1 } }), /may not use the tool/);
    assert.equal(github.calls.length, before);
    const { tools: listed } = await client.listTools();
    assert.ok(!listed.some((tool) => tool.name.startsWith("github__")));
    await client.close();
  });

  test("a team's servers are open to its tokens, every tool, and closed again when the team drops them", async () => {
    const user = await gateway.admin("POST", "/api/admin/users", { email: "mcp-team@example.com", password: "mcp-team-password-1" });
    const team = await gateway.admin("POST", "/api/admin/teams", { name: "mcp team", mcp: ["github"] });
    assert.equal(team.status, 201, JSON.stringify(team.body));
    assert.equal((await gateway.admin("POST", `/api/admin/teams/${team.body.id}/members`, { userId: user.body.id, role: "member" })).status, 201);
    const token = await gateway.admin("POST", "/api/admin/tokens", { name: "team agent", teamId: team.body.id, userId: user.body.id });
    assert.equal(token.status, 201, JSON.stringify(token.body));
    gateway.secrets.add(token.body.key);
    const client = await connect("/mcp", token.body.key);
    assert.deepEqual((await client.listTools()).tools.map((tool) => tool.name).sort(), ["github__add", "github__echo"]);
    const added = await client.callTool({ name: "github__add", arguments: { a: 2, b: 3 } });
    assert.match(JSON.stringify(added.content), /5/);
    assert.equal((await gateway.admin("PATCH", `/api/admin/teams/${team.body.id}`, { mcp: [] })).status, 200);
    await assert.rejects(client.callTool({ name: "github__add", arguments: { a: 1, b: 1 } }), /may not use the tool/);
    await client.close();
  });

  test("tools/call counts against the requests window; lists do not", async () => {
    const client = await connect();
    // Six requests a day: echo, fail, slow, add, add (1 + 1 above) made five charged calls.
    await client.listTools();
    await client.listTools();
    const sixth = await client.callTool({ name: "tools__fail", arguments: {} });
    assert.equal(sixth.isError, true);
    await eventually(async () => {
      await assert.rejects(client.callTool({ name: "tools__fail", arguments: {} }), /Limit reached: .* allows 6 requests/);
    }, 5000);
    await client.close();
  });

  test("no credential is stored in plain text", async () => {
    const text = await gateway.storedText();
    assert.ok(!text.includes(UPSTREAM_BEARER));
  });
});
