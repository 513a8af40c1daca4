// Records Codex compacting its own session: `codex exec` runs one turn against a loopback
// fake Responses server whose first answer is a tool call reporting a context nearly full;
// with `model_auto_compact_token_limit` set low Codex compacts before it samples again (a
// `/v1/responses` request whose input ends with a `compaction_trigger` item, answered with one
// `compaction` item), then carries on from the compacted history. The three requests are
// kept, scrubbed of this machine, in tests/fixtures/agents/codex-compaction.json.
// Codex compacts remotely only on its built-in OpenAI provider (a custom `model_providers`
// entry gets its local compaction, a summary prompt sent as an ordinary turn), so the
// recorder points that provider at the loopback server with `openai_base_url`.
// Run: npx tsx tests/agents/record-codex-compaction.ts
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { AGENT_PACKAGES, CACHE, ensureAgentClis } from "./agent-clis";

const FIXTURE = path.join(import.meta.dirname, "..", "fixtures", "agents", "codex-compaction.json");
const MODEL = "gpt-test";
const AUTO_COMPACT_TOKEN_LIMIT = 20_000;
/** What the first answer reports: far past the limit above, so Codex compacts before its next request. */
const FULL_CONTEXT_TOKENS = 180_000;
/** In the tool call that gets compacted away: the follow-up must never carry it again. */
const DROPPED_MARK = "DROPPED-TURN-5c1e";
/** OpenAI's compaction item is opaque; the recorder answers one of its own. */
const RECORDED_COMPACTION = { type: "compaction", id: "cmp_recorded", encrypted_content: "recorded-opaque-compaction-blob" };
const PROMPT = "Print the greeting, then summarise what you did";
const KEY = "sk-recording";
const DROPPED_HEADERS = new Set(["host", "content-length", "connection", "authorization", "x-api-key"]);

interface Recorded {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

type Item = { type?: string; role?: string; content?: unknown };

const sse = (events: Record<string, unknown>[]) => events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join("");

const usage = (input: number, output: number) => ({
  input_tokens: input,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: output,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: input + output,
});

let responseCount = 0;

/** One streamed Responses answer with these output items. */
function streamed(output: Record<string, unknown>[], tokens: ReturnType<typeof usage>): string {
  responseCount += 1;
  const base = { id: `resp_recorded_${responseCount}`, object: "response", created_at: 1_795_636_551, model: MODEL };
  const events: Record<string, unknown>[] = [{ type: "response.created", response: { ...base, status: "in_progress", output: [] } }];
  output.forEach((item, index) => {
    events.push({ type: "response.output_item.added", output_index: index, item });
    events.push({ type: "response.output_item.done", output_index: index, item });
  });
  events.push({ type: "response.completed", response: { ...base, status: "completed", output, usage: tokens } });
  return sse(events.map((event, index) => ({ ...event, sequence_number: index })));
}

/** The fake upstream: a tool call at a full context, one compaction item when asked, then a short answer. */
function answer(request: Recorded): { status: number; type: string; body: string } {
  const body = request.body ? JSON.parse(request.body) : {};
  const input: Item[] = Array.isArray(body.input) ? body.input : [];
  if (request.path.startsWith("/v1/responses/compact")) {
    const users = input.filter((item) => item.role === "user");
    return {
      status: 200,
      type: "application/json",
      body: JSON.stringify({ id: "resp_compacted", object: "response.compaction", created_at: 1_795_636_552, output: [...users, RECORDED_COMPACTION], usage: usage(900, 100) }),
    };
  }
  if (!request.path.startsWith("/v1/responses"))
    return { status: 404, type: "application/json", body: JSON.stringify({ error: { message: "not recorded", type: "invalid_request_error" } }) };
  if (input.at(-1)?.type === "compaction_trigger") {
    const item = RECORDED_COMPACTION;
    if (body.stream === false)
      return {
        status: 200,
        type: "application/json",
        body: JSON.stringify({ id: "resp_compacted", object: "response", status: "completed", output: [item], usage: usage(900, 100) }),
      };
    return { status: 200, type: "text/event-stream", body: streamed([item], usage(900, 100)) };
  }
  const calledBefore = input.some((item) => item.type === "function_call_output" || item.type === "compaction");
  if (!calledBefore) {
    const call = {
      type: "function_call",
      id: "fc_recorded",
      call_id: "call_recorded",
      name: "exec_command",
      arguments: JSON.stringify({ cmd: `echo ${DROPPED_MARK}` }),
      status: "completed",
    };
    return { status: 200, type: "text/event-stream", body: streamed([call], usage(FULL_CONTEXT_TOKENS, 40)) };
  }
  const message = { type: "message", id: "msg_recorded", role: "assistant", status: "completed", content: [{ type: "output_text", text: "Done.", annotations: [] }] };
  return { status: 200, type: "text/event-stream", body: streamed([message], usage(2_000, 10)) };
}

async function record(): Promise<{ requests: Recorded[]; run: { code: number | null; stderr: string; stdout: string } }> {
  const seen: Recorded[] = [];
  const server = http.createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const entry = { method: request.method ?? "", path: request.url ?? "", headers: request.headers as Record<string, string>, body: Buffer.concat(chunks).toString("utf8") };
    seen.push(entry);
    const { status, type, body } = answer(entry);
    response.writeHead(status, { "content-type": type });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const workdir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-work-"));
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "agent-home-codex-"));
  try {
    const run = await runCodex({ origin, workdir, home });
    return { requests: seen.map((entry) => scrub(entry, { workdir, home, origin })), run };
  } finally {
    server.close();
    fs.rmSync(workdir, { recursive: true, force: true });
    fs.rmSync(home, { recursive: true, force: true });
  }
}

/** `codex exec` as tests/agents/agent-clis.ts runs it, with the compaction limit lowered. */
function runCodex({ origin, workdir, home }: { origin: string; workdir: string; home: string }): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const bin = path.join(CACHE, "node_modules", ".bin", AGENT_PACKAGES.codex.bin);
  const args = [
    "exec",
    "--skip-git-repo-check",
    "--sandbox",
    "read-only",
    "-c",
    `openai_base_url="${origin}/v1"`,
    "-c",
    `model_auto_compact_token_limit=${AUTO_COMPACT_TOKEN_LIMIT}`,
    "-m",
    MODEL,
    PROMPT,
  ];
  const env = {
    PATH: process.env.PATH ?? "",
    LANG: "C.UTF-8",
    TERM: "dumb",
    NO_COLOR: "1",
    CI: "1",
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, ".config"),
    XDG_DATA_HOME: path.join(home, ".local", "share"),
    XDG_CACHE_HOME: path.join(home, ".cache"),
    XDG_STATE_HOME: path.join(home, ".local", "state"),
    CODEX_HOME: home,
  } as unknown as NodeJS.ProcessEnv;
  // The built-in provider's API-key sign-in, into the throwaway home.
  const login = spawnSync(bin, ["login", "--with-api-key"], { input: `${KEY}\n`, env, cwd: workdir });
  if (login.status !== 0) throw new Error(`codex login --with-api-key failed: ${login.stderr}`);
  return new Promise((resolve) => {
    const child = spawn(bin, args, { cwd: workdir, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Paths, user and host names, and the kernel and OS of this machine, replaced by neutral ones. */
function scrub(entry: Recorded, places: { workdir: string; home: string; origin: string }): Recorded {
  const swaps: [string | RegExp, string][] = [
    [fs.realpathSync(places.workdir), "/workspace/project"],
    [places.workdir, "/workspace/project"],
    [fs.realpathSync(places.home), "/home/user"],
    [places.home, "/home/user"],
    [CACHE, "/opt/agents"],
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

// Only Codex is needed; the cache may hold it without the other agents.
const manifest = path.join(CACHE, "node_modules", AGENT_PACKAGES.codex.package, "package.json");
if (!fs.existsSync(manifest) || JSON.parse(fs.readFileSync(manifest, "utf8")).version !== AGENT_PACKAGES.codex.version) ensureAgentClis();
const { requests, run } = await record();
// Codex first tries the Responses WebSocket (a GET upgrade the recorder refuses), then posts.
const posts = requests.filter((request) => request.method === "POST");
const inputOf = (request: Recorded): Item[] => JSON.parse(request.body).input ?? [];
// Codex 0.169 asks with a trigger item; older releases posted to /v1/responses/compact.
const compaction = posts.findIndex((request) => request.path.startsWith("/v1/responses/compact") || inputOf(request).at(-1)?.type === "compaction_trigger");
const followUp = posts.findIndex((request) => inputOf(request).some((item) => item.type === "compaction"));
if (compaction < 1 || followUp !== compaction + 1) {
  const seen = posts
    .map(
      (request) =>
        `${request.path} [${inputOf(request)
          .map((item) => item.type ?? item.role)
          .join(" ")}]`,
    )
    .join("\n");
  throw new Error(`Codex did not compact as expected (exit ${run.code}):\n${seen}\n${run.stderr.slice(-2000)}`);
}
const steps = ["turn", "compaction", "follow-up"];
const { package: name, version } = AGENT_PACKAGES.codex;
const fixture = {
  about: [
    `Recorded from ${name} ${version}: \`codex exec\` with the built-in OpenAI provider pointed at a loopback fake Responses server`,
    `(-c openai_base_url=..., an API-key login) and -c model_auto_compact_token_limit=${AUTO_COMPACT_TOKEN_LIMIT}, prompt "${PROMPT}".`,
    `The fake answered the turn with an exec_command call (echo ${DROPPED_MARK}) reporting ${FULL_CONTEXT_TOKENS} input tokens, so Codex compacted mid-turn:`,
    "a streamed /v1/responses request whose input ends with a compaction_trigger item, answered with exactly one compaction item",
    `(${JSON.stringify(RECORDED_COMPACTION)}); the follow-up carries that item in place of the call and its output.`,
    "WebSocket upgrade attempts before the first POST are left out; paths, user and host names are scrubbed and auth headers dropped.",
    "Re-record with: npx tsx tests/agents/record-codex-compaction.ts",
  ].join(" "),
  agent: name,
  version,
  droppedMark: DROPPED_MARK,
  compactionItem: RECORDED_COMPACTION,
  requests: posts
    .slice(compaction - 1, followUp + 1)
    .map((request, index) => ({ step: steps[index], method: request.method, path: request.path, headers: request.headers, body: JSON.parse(request.body) })),
};
fs.writeFileSync(FIXTURE, `${JSON.stringify(fixture, null, 1)}\n`);
for (const request of fixture.requests) {
  process.stdout.write(`${request.step}: ${request.method} ${request.path}, input ${request.body.input.map((item: Item) => item.type ?? item.role).join(" ")}\n`);
}
