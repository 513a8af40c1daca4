import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { startToolsServer, type TestMcpServer } from "../helpers/mcp-test-servers";
import { startGateway, type Gateway } from "../helpers/start-gateway";

// The MCP requests Codex and Claude Code really send when they connect to an HTTP MCP server
// (recorded by tests/agents/record-mcp-fixtures.ts), replayed against the gateway's /mcp with a
// gateway token: each initializes, and lists the tools granted under their prefixed names.

const FIXTURES = path.join(import.meta.dirname, "..", "fixtures", "agents");
interface Fixture {
  agent: string;
  version: string;
  requests: { method: string; headers: Record<string, string>; body: { id?: number | string; method: string; params?: { protocolVersion?: string } } }[];
}

let gateway: Gateway;
let tools: TestMcpServer;
let key: string;

before(async () => {
  tools = await startToolsServer();
  gateway = await startGateway();
  assert.equal((await gateway.admin("POST", "/api/admin/mcp-servers", { name: "tools", url: tools.url })).status, 201);
  const token = await gateway.admin("POST", "/api/admin/tokens", { name: "agents", mcp: [{ server: "tools", tools: ["fail", "slow"] }] });
  key = token.body.key;
  gateway.secrets.add(key);
});
after(async () => {
  await gateway?.stop();
  await tools?.close();
});

describe("recorded agent MCP requests against /mcp", () => {
  for (const agent of ["codex", "claude"]) {
    test(`${agent}: initialize, initialized, tools/list as the agent sends them`, async () => {
      const fixture = JSON.parse(fs.readFileSync(path.join(FIXTURES, `${agent}-mcp.json`), "utf8")) as Fixture;
      assert.ok(fixture.requests.length >= 3);
      let sessionId: string | null = null;
      const methods: string[] = [];
      for (const recorded of fixture.requests) {
        const headers: Record<string, string> = { ...recorded.headers, authorization: `Bearer ${key}` };
        // The gateway's own session id, carried as the agent carries the one it is given.
        if (sessionId) headers["mcp-session-id"] = sessionId;
        const response = await fetch(`${gateway.url}/mcp`, { method: recorded.method, headers, body: JSON.stringify(recorded.body) });
        methods.push(recorded.body.method);
        if (recorded.body.id === undefined) {
          assert.equal(response.status, 202, `${recorded.body.method} is a notification`);
          continue;
        }
        assert.equal(response.status, 200, await response.clone().text());
        const answer = (await response.json()) as { id: unknown; result: Record<string, unknown> };
        assert.equal(answer.id, recorded.body.id);
        if (recorded.body.method === "initialize") {
          assert.equal(answer.result.protocolVersion, recorded.body.params?.protocolVersion);
          sessionId = response.headers.get("mcp-session-id");
          assert.ok(sessionId);
        }
        if (recorded.body.method === "tools/list") {
          const names = (answer.result.tools as { name: string }[]).map((tool) => tool.name).sort();
          assert.deepEqual(names, ["tools__fail", "tools__slow"]);
        }
      }
      assert.deepEqual(methods.slice(0, 3), ["initialize", "notifications/initialized", "tools/list"]);
    });
  }
});
