import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { startToolsServer, type TestMcpServer } from "../helpers/mcp-test-servers";
import { startGateway, type Gateway } from "../helpers/start-gateway";

// The MCP requests Codex and Claude Code really send when they connect to an HTTP MCP server
// (recorded by tests/agents/record-mcp-fixtures.ts), replayed against the gateway's /mcp with a
// gateway token: each initializes, and lists the tools granted under their prefixed names. Then
// the requests of a whole turn in which each agent's model (through the gateway) called
// `tools__slow`: the call reaches the tool with the agent's own arguments and _meta, its result
// comes back as the agent reads it, and it is one log row.

const FIXTURES = path.join(import.meta.dirname, "..", "fixtures", "agents");
interface Fixture {
  agent: string;
  version: string;
  requests: {
    method: string;
    headers: Record<string, string>;
    body: { id?: number | string; method: string; params?: { protocolVersion?: string; name?: string; _meta?: { progressToken?: unknown } } };
  }[];
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

/** A JSON-RPC answer as the transport sends it: a JSON body, or the last message of an SSE stream. */
async function rpcAnswer(response: Response): Promise<{ id: unknown; result?: { content?: { type: string; text: string }[]; isError?: boolean } }> {
  const text = await response.text();
  if (!(response.headers.get("content-type") ?? "").includes("text/event-stream")) return JSON.parse(text);
  const messages = text
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => JSON.parse(line.slice("data: ".length)));
  return messages.filter((message) => message.id !== undefined).at(-1);
}

describe("recorded agent turns that call a tool through /mcp", () => {
  for (const agent of ["codex", "claude"]) {
    test(`${agent}: the tools/call it sent reaches the tool and answers as it did for the agent, as one log row`, async () => {
      const fixture = JSON.parse(fs.readFileSync(path.join(FIXTURES, `${agent}-mcp-call.json`), "utf8")) as Fixture;
      const before = tools.calls.filter((call) => call.tool === "slow").length;
      let sessionId: string | null = null;
      let called = 0;
      for (const recorded of fixture.requests) {
        const headers: Record<string, string> = { ...recorded.headers, authorization: `Bearer ${key}` };
        delete headers["mcp-session-id"];
        if (sessionId) headers["mcp-session-id"] = sessionId;
        const response = await fetch(`${gateway.url}/mcp`, { method: recorded.method, headers, body: JSON.stringify(recorded.body) });
        if (recorded.body.id === undefined) {
          assert.equal(response.status, 202);
          continue;
        }
        assert.equal(response.status, 200, await response.clone().text());
        if (recorded.body.method === "initialize") sessionId = response.headers.get("mcp-session-id");
        const answer = await rpcAnswer(response);
        assert.equal(answer.id, recorded.body.id);
        if (recorded.body.method === "tools/call") {
          called += 1;
          assert.equal(recorded.body.params?.name, "tools__slow");
          assert.deepEqual(answer.result?.content, [{ type: "text", text: "done in 2" }]);
          assert.notEqual(answer.result?.isError, true);
        }
      }
      assert.equal(called, 1);
      assert.equal(tools.calls.filter((call) => call.tool === "slow").length, before + 1, "the upstream tool ran once");
      const logs = await gateway.admin("GET", "/api/admin/logs?limit=50");
      const rows = (logs.body.data as { endpoint: string; mcpTool?: string | null }[]).filter((row) => row.endpoint === "/mcp");
      assert.ok(
        rows.some((row) => row.mcpTool === "slow"),
        JSON.stringify(rows.slice(0, 3)),
      );
    });
  }
});
