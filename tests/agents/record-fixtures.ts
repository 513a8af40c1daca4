// Records one fresh request of each agent release in agent-clis.ts as a fixture under
// tests/fixtures/agents/: each agent runs one "Say hello" turn against a loopback recorder
// (which refuses it, so the agent stops), and its main request (the one declaring its
// tools) is kept with everything of this machine scrubbed out.
// Run: npx tsx tests/agents/record-fixtures.ts
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { AGENT_PACKAGES, CACHE, ensureAgentClis, runAgentTurn, type AgentName } from "./agent-clis";

const FIXTURES = path.join(import.meta.dirname, "..", "fixtures", "agents");
const MODELS: Record<AgentName, string> = { codex: "gpt-test", claude: "claude-test", gemini: "gemini-test", opencode: "gpt-test" };
const DROPPED_HEADERS = new Set(["host", "content-length", "connection", "authorization", "x-api-key", "x-goog-api-key"]);

interface Recorded {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

async function record(agent: AgentName): Promise<Recorded[]> {
  const seen: Recorded[] = [];
  const server = http.createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    seen.push({ method: request.method ?? "", path: request.url ?? "", headers: request.headers as Record<string, string>, body: Buffer.concat(chunks).toString("utf8") });
    response.writeHead(400, { "content-type": "application/json" });
    response.end(JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: "recorded", code: null, param: null } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const workdir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-work-"));
  try {
    await runAgentTurn({ agent, origin, key: "sk-recording", model: MODELS[agent], prompt: "Say hello", workdir, timeoutMs: 90_000 });
    return seen.map((entry) => scrub(entry, { workdir, origin }));
  } finally {
    server.close();
    fs.rmSync(workdir, { recursive: true, force: true });
  }
}

/** Paths, user and host names, and the kernel and OS of this machine, replaced by neutral ones. */
function scrub(entry: Recorded, places: { workdir: string; origin: string }): Recorded {
  const swaps: [string | RegExp, string][] = [
    [fs.realpathSync(places.workdir), "/workspace/project"],
    [places.workdir, "/workspace/project"],
    // Claude Code names its project folder after the working directory's path.
    [places.workdir.replace(/[^a-zA-Z0-9]/g, "-"), "-workspace-project"],
    // Gemini CLI names its temporary folder after the working directory's.
    [path.basename(places.workdir), "project"],
    [CACHE, "/opt/agents"],
    [new RegExp(`${escapeRegExp(os.tmpdir())}/agent-home-[a-z]+-\\w+`, "g"), "/home/user"],
    [places.origin, "http://127.0.0.1:8080"],
    [new RegExp(`\\b${escapeRegExp(os.hostname())}\\b`, "g"), "host"],
    [new RegExp(`/(home|Users)/${escapeRegExp(os.userInfo().username)}\\b`, "g"), "/home/user"],
    [new RegExp(escapeRegExp(os.release()), "g"), "6.0.0"],
    [/\((Debian|Ubuntu|Fedora|Alpine)[^;)]*;/g, "(Linux;"],
  ];
  const clean = (text: string) => swaps.reduce((current, [from, to]) => current.replaceAll(from as string, to), text);
  const headers = Object.fromEntries(
    Object.entries(entry.headers)
      .filter(([name]) => !DROPPED_HEADERS.has(name))
      .map(([name, value]) => [name, clean(String(value))]),
  );
  return { method: entry.method, path: entry.path, headers, body: clean(entry.body) };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

ensureAgentClis();
fs.mkdirSync(FIXTURES, { recursive: true });
for (const agent of Object.keys(AGENT_PACKAGES) as AgentName[]) {
  const requests = await record(agent);
  // The turn itself: the request that declares the agent's tools (opencode first asks for a title).
  const turn = requests.findLast((request) => /"tools"/.test(request.body));
  if (!turn) throw new Error(`${agent} sent no request with tools: ${requests.map((request) => `${request.method} ${request.path}`).join(", ")}`);
  const { package: name, version } = AGENT_PACKAGES[agent];
  const fixture = { agent: name, version, method: turn.method, path: turn.path, headers: turn.headers, body: JSON.parse(turn.body) };
  fs.writeFileSync(path.join(FIXTURES, `${agent}.json`), `${JSON.stringify(fixture, null, 1)}\n`);
  process.stdout.write(`${agent} ${version}: ${turn.method} ${turn.path}, ${turn.body.length} bytes\n`);
}
