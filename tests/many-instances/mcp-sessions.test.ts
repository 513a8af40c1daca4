import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startGithubLikeServer, startToolsServer, type TestMcpServer } from "../helpers/mcp-test-servers";
import { sharedServices, startGateway, type Gateway } from "../helpers/start-gateway";

// One MCP session answered by two gateway processes in turn (PostgreSQL + Redis): the session
// lives in its sealed id, not in a process, and a grant removed through one process ends the
// next call through the other.

const UPSTREAM_BEARER = "ghp_many_instances_0123456789";
let gateway: Gateway;
let github: TestMcpServer;
let tools: TestMcpServer;

before(async () => {
  if (!sharedServices()) throw new Error("This suite needs TEST_POSTGRES_URL and TEST_REDIS_URL: run it through `npm test`.");
  [github, tools] = await Promise.all([startGithubLikeServer(UPSTREAM_BEARER), startToolsServer()]);
  gateway = await startGateway({}, { processes: 2 });
  assert.equal(gateway.instances.length, 2);
  gateway.secrets.add(UPSTREAM_BEARER);
});
after(async () => {
  await gateway?.stop();
  await Promise.all([github?.close(), tools?.close()]);
});

describe("an MCP session across two processes", () => {
  test("requests of one session alternate between the processes; a grant removed through one ends the next call through the other", async () => {
    assert.equal(
      (await gateway.admin("POST", "/api/admin/mcp-servers", { name: "github", url: github.url, headers: { Authorization: `Bearer ${UPSTREAM_BEARER}` } }, 0)).status,
      201,
    );
    assert.equal((await gateway.admin("POST", "/api/admin/mcp-servers", { name: "tools", url: tools.url }, 1)).status, 201);
    const token = await gateway.admin("POST", "/api/admin/tokens", { name: "agent", mcp: [{ server: "github" }, { server: "tools", tools: ["slow"] }] }, 0);
    gateway.secrets.add(token.body.key);

    // Every request of the session goes to the other process than the one before it.
    const served: { instance: number; method: string; session: string | null }[] = [];
    let next = 0;
    const alternating: typeof fetch = async (input, init) => {
      const instance = next;
      next = 1 - next;
      const url = new URL(String(input instanceof Request ? input.url : input));
      const body = typeof init?.body === "string" ? (JSON.parse(init.body) as { method?: string }) : {};
      served.push({ instance, method: body.method ?? init?.method ?? "GET", session: new Headers(init?.headers).get("mcp-session-id") });
      return fetch(`${gateway.instances[instance]}${url.pathname}`, init);
    };
    const client = new Client({ name: "two-process-agent", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gateway.instances[0]}/mcp`), { fetch: alternating, requestInit: { headers: { Authorization: `Bearer ${token.body.key}` } } }),
    );
    const listed = await client.listTools();
    assert.deepEqual(listed.tools.map((tool) => tool.name).sort(), ["github__add", "github__echo", "tools__slow"]);
    const echoed = await client.callTool({ name: "github__echo", arguments: { text: "across" } });
    assert.deepEqual(echoed.structuredContent, { echoed: "across" });
    const seen: number[] = [];
    const slow = await client.callTool({ name: "tools__slow", arguments: { steps: 2 } }, undefined, { onprogress: (progress) => seen.push(progress.progress) });
    assert.deepEqual(slow.content, [{ type: "text", text: "done in 2" }]);
    assert.deepEqual(seen, [1, 2]);

    const sessionIds = new Set(served.filter((entry) => entry.session).map((entry) => entry.session));
    assert.equal(sessionIds.size, 1, "one session throughout");
    assert.ok(served.some((entry) => entry.session && entry.instance === 0) && served.some((entry) => entry.session && entry.instance === 1), JSON.stringify(served));

    // Removed through process 0; the very next call of the session (whichever process) is refused and not forwarded.
    assert.equal((await gateway.admin("PATCH", `/api/admin/tokens/${token.body.id}`, { mcp: [{ server: "tools", tools: ["slow"] }] }, 0)).status, 200);
    const callsBefore = github.calls.length;
    for (let attempt = 0; attempt < 2; attempt += 1) {
      await assert.rejects(client.callTool({ name: "github__echo", arguments: { text: "no" } }), /may not use the tool "github__echo"/);
    }
    assert.equal(github.calls.length, callsBefore);
    await client.close();
  });
});
