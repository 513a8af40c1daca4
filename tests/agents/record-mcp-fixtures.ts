// Records the MCP requests Codex (`mcp_servers.<name>.url`, bearer from an environment variable)
// and Claude Code (an `http` server with an Authorization header) send to an HTTP MCP server, as
// tests/fixtures/agents/<agent>-mcp.json: each agent runs one turn whose model request a loopback
// recorder refuses, after it connected to the MCP server, a recording proxy in front of an SDK
// test server. Then, as <agent>-mcp-call.json, a whole turn through a real gateway: the agent's
// model calls go to the gateway (vendor fakes behind it, which call the tool the prompt names)
// and its MCP server is the gateway's /mcp with the same token, so the agent lists the granted
// tools and calls one. tests/integration/mcp-agent-fixtures.test.ts replays both against /mcp.
// Run: npx tsx tests/agents/record-mcp-fixtures.ts
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { startToolsServer } from "../helpers/mcp-test-servers";
import { startGateway } from "../helpers/start-gateway";
import { addVendorChannels, closeVendorFakes, startVendorFakes } from "../helpers/vendor-fakes";
import { AGENT_PACKAGES, ensureAgentClis, runAgentTurn } from "./agent-clis";

const FIXTURES = path.join(import.meta.dirname, "..", "fixtures", "agents");
const MODELS = { codex: "gpt-test", claude: "claude-test" } as const;
type McpAgent = keyof typeof MODELS;

/** How each agent is told about an HTTP MCP server with a bearer token. */
const MCP_ARGS: Record<McpAgent, (url: string, key: string) => string[]> = {
  codex: (url) => ["-c", `mcp_servers.gateway.url="${url}"`, "-c", 'mcp_servers.gateway.bearer_token_env_var="GATEWAY_KEY"'],
  // `--strict-mcp-config` ends `--mcp-config`'s list of files, so the prompt after it stays the prompt.
  // An MCP tool needs permission in -p mode: the gateway's are allowed by name.
  claude: (url, key) => [
    "--allowedTools",
    "mcp__gateway",
    "--mcp-config",
    JSON.stringify({ mcpServers: { gateway: { type: "http", url, headers: { Authorization: `Bearer ${key}` } } } }),
    "--strict-mcp-config",
  ],
};
const KEPT_HEADERS = ["accept", "content-type", "mcp-protocol-version", "mcp-session-id", "user-agent"];

interface Recorded {
  method: string;
  headers: Record<string, string>;
  body: unknown;
}

async function listen(handler: http.RequestListener): Promise<{ url: string; close: () => void }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

/** Forwards every request to `target` and keeps its method, the headers worth keeping (never authorization) and its body. */
function recordingProxy(target: string, seen: Recorded[]) {
  return listen(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const headers = Object.fromEntries(KEPT_HEADERS.flatMap((name) => (request.headers[name] ? [[name, String(request.headers[name])]] : [])));
    seen.push({ method: request.method ?? "", headers, body: text ? JSON.parse(text) : null });
    const forwarded = await fetch(target, { method: request.method, headers: request.headers as Record<string, string>, body: text || undefined });
    response.writeHead(forwarded.status, Object.fromEntries(forwarded.headers));
    response.end(Buffer.from(await forwarded.arrayBuffer()));
  });
}

async function record(agent: McpAgent) {
  const upstream = await startToolsServer();
  const seen: Recorded[] = [];
  const proxy = await recordingProxy(upstream.url, seen);
  const model = await listen((_request, response) => {
    response.writeHead(400, { "content-type": "application/json" });
    response.end(JSON.stringify({ error: { type: "invalid_request_error", message: "recorded", code: null, param: null } }));
  });
  const workdir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-work-"));
  try {
    const run = await runAgentTurn({
      agent,
      origin: model.url,
      key: "sk-recording",
      model: MODELS[agent],
      prompt: "Say hello",
      workdir,
      timeoutMs: 90_000,
      extraArgs: MCP_ARGS[agent](`${proxy.url}/mcp`, "sk-recording"),
    });
    const mcp = seen.filter((entry) => entry.method === "POST");
    if (mcp.length === 0) throw new Error(`${agent} sent no MCP request:\n${run.stderr.slice(-2000)}`);
    const { package: name, version } = AGENT_PACKAGES[agent];
    const fixture = path.join(FIXTURES, `${agent}-mcp.json`);
    fs.writeFileSync(fixture, `${JSON.stringify({ agent: name, version, requests: mcp }, null, 1)}\n`);
    process.stdout.write(`recorded ${mcp.length} MCP requests of ${name}@${version} into ${path.relative(process.cwd(), fixture)}\n`);
  } finally {
    proxy.close();
    model.close();
    await upstream.close();
    fs.rmSync(workdir, { recursive: true, force: true });
  }
}

/** The prompt the vendor fakes answer with a call of the gateway's `tools__slow` (its name ends in `__slow`). */
const CALL_PROMPT = 'Please call the tool slow with {"steps":2}';

async function recordCall(agent: McpAgent) {
  const upstream = await startToolsServer();
  const fakes = await startVendorFakes();
  const gateway = await startGateway();
  const workdir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-work-"));
  const seen: Recorded[] = [];
  let proxy: { url: string; close: () => void } | undefined;
  try {
    await addVendorChannels(gateway, fakes, { openai: [MODELS.codex], anthropic: [MODELS.claude], gemini: ["gemini-unused"] });
    const server = await gateway.admin("POST", "/api/admin/mcp-servers", { name: "tools", url: upstream.url });
    if (server.status !== 201) throw new Error(JSON.stringify(server.body));
    const { key } = (await gateway.admin("POST", "/api/admin/tokens", { name: "agent", mcp: [{ server: "tools", tools: ["slow"] }] })).body as { key: string };
    // The agent talks to /mcp through the proxy, which keeps what it sends (never the token).
    proxy = await recordingProxy(`${gateway.url}/mcp`, seen);
    const run = await runAgentTurn({
      agent,
      origin: gateway.url,
      key,
      model: MODELS[agent],
      prompt: CALL_PROMPT,
      workdir,
      timeoutMs: 120_000,
      extraArgs: MCP_ARGS[agent](`${proxy.url}/mcp`, key),
    });
    const calls = seen.filter((entry) => (entry.body as { method?: string } | null)?.method === "tools/call");
    if (calls.length === 0 || !run.stdout.includes("Tool said: ")) {
      const methods = seen.map((entry) => (entry.body as { method?: string } | null)?.method ?? entry.method).join(", ");
      throw new Error(`${agent} called no tool through /mcp (it sent: ${methods}):\n${run.stdout.slice(-1500)}\n${run.stderr.slice(-2000)}`);
    }
    const { package: name, version } = AGENT_PACKAGES[agent];
    const fixture = path.join(FIXTURES, `${agent}-mcp-call.json`);
    const requests = seen.filter((entry) => entry.method === "POST");
    fs.writeFileSync(fixture, `${JSON.stringify({ agent: name, version, prompt: CALL_PROMPT, answer: run.stdout.trim().slice(-300), requests }, null, 1)}\n`);
    process.stdout.write(`recorded ${requests.length} MCP requests (${calls.length} tools/call) of ${name}@${version} into ${path.relative(process.cwd(), fixture)}\n`);
  } finally {
    proxy?.close();
    await gateway.stop();
    await closeVendorFakes(fakes);
    await upstream.close();
    fs.rmSync(workdir, { recursive: true, force: true });
  }
}

ensureAgentClis();
const only = process.argv[2];
const agents = (process.argv[3] ? [process.argv[3]] : Object.keys(MODELS)) as McpAgent[];
for (const agent of agents) {
  if (only !== "call") await record(agent);
  await recordCall(agent);
}
