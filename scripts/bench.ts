// `npm run bench`: the gateway side by side with (a) its upstream called directly and
// (b) a minimal proxy (scripts/bench/raw-proxy.ts), each in its own process, in one run.
// The gateway runs as `npm start` runs it; a second copy with REQUEST_LOG=off shows what
// the request log costs. Targets share core 0; the upstream and the load
// generator (autocannon, this process) get core 1. Prints a table of ratios and CPU per
// request (from /proc/<pid>/stat), and writes scripts/.tmp/bench-results.json.
// Loads that are compared run in turn, BENCH_ROUNDS times, and each figure is the median
// of its rounds: a slow spell of the shared machine then falls on all of them alike.
// Options: BENCH_SECONDS (5 per run), BENCH_ROUNDS (3), BENCH_CONNECTIONS (32), BENCH_RATE (100),
// and the agent workload's (scripts/bench/agent-workload.ts).
// BENCH_BASELINE=<another checkout, installed>: its gateway runs beside this one in the same
// rounds (same upstream, same core), so a change is measured against the code before it
// in one run rather than against numbers from another day.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { request } from "undici";
import { agentWorkload } from "./bench/agent-workload";
import { atFixedRate, cores, interleaved, memoryMb, pin, rate, ROOT, rounds, seconds, connections, startProcess, type Load, type Target } from "./bench/harness";

const baselineRoot = process.env.BENCH_BASELINE ? path.resolve(process.env.BENCH_BASELINE) : undefined;

async function startGatewayTarget(
  upstreamPort: number,
  processes: number,
  extraEnv: Record<string, string> = {},
  root = ROOT,
): Promise<Target & { stop(): void; windowedToken: string; adminKey: string; admin(route: string, body: unknown): Promise<any> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "gateway-bench-"));
  const adminKey = `bench-admin-${randomBytes(12).toString("hex")}`;
  const { child, match } = await startProcess(
    // One process shares core 0 with the proxy; several get every core, as PROCESSES=N would.
    [...(processes === 1 ? pin(0) : []), process.execPath, "scripts/start.mjs"],
    {
      PORT: "0",
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      ADMIN_API_KEY: adminKey,
      LOG_LEVEL: "warn",
      DATABASE_URL: "",
      REDIS_URL: "",
      REQUEST_LOG: "on",
      PROCESSES: String(processes),
      ...extraEnv,
    },
    /Gateway ready on (http:\/\/\S+)/,
    root,
  );
  const url = match[1]!.replace("localhost", "127.0.0.1");
  const admin = async (route: string, body: unknown) => {
    const response = await request(`${url}${route}`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminKey}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return (await response.body.json()) as any;
  };
  await admin("/api/admin/channels", { name: "bench", type: "openai", baseUrl: `http://127.0.0.1:${upstreamPort}`, apiKey: "sk-bench-upstream", models: ["bench-model"] });
  // The agent workload's Anthropic relay (scripts/bench/agent-workload.ts).
  await admin("/api/admin/channels", {
    name: "bench anthropic",
    type: "anthropic",
    baseUrl: `http://127.0.0.1:${upstreamPort}`,
    apiKey: "sk-ant-bench-upstream",
    models: ["claude-bench"],
  });
  const token = await admin("/api/admin/tokens", { name: "bench" });
  // A token with plan-style limit windows that never run out: what reserving and settling them costs.
  const windowed = await admin("/api/admin/tokens", {
    name: "bench windows",
    limits: [
      { window: "5h", requests: 1_000_000_000 },
      { window: "week", tokens: 1_000_000_000_000 },
      { window: "month", usd: 1_000_000 },
    ],
  });
  return {
    name: processes === 1 ? "gateway" : `gateway x${processes}`,
    url,
    headers: { authorization: `Bearer ${token.key}` },
    windowedToken: String(windowed.key),
    adminKey,
    admin,
    pid: child.pid!,
    stop() {
      child.kill("SIGTERM");
      setTimeout(() => fs.rmSync(dataDir, { recursive: true, force: true }), 3000).unref();
    },
  };
}

const chatBody = JSON.stringify({ model: "bench-model", messages: [{ role: "user", content: "Say hello to the benchmark." }] });
const streamBody = JSON.stringify({ model: "bench-model", stream: true, messages: [{ role: "user", content: "Say hello to the benchmark." }] });
const anthropicBody = JSON.stringify({ model: "bench-model", max_tokens: 64, stream: true, messages: [{ role: "user", content: "Say hello to the benchmark." }] });

const upstreamPort = Number((await startProcess([...pin(1), process.execPath, "--import", "tsx", "scripts/bench/upstream.ts"], {}, /^(\d+)$/m)).match[1]);
const proxyToken = `sk-${randomBytes(16).toString("hex")}`;
const proxy = await startProcess([...pin(0), process.execPath, "--import", "tsx", "scripts/bench/raw-proxy.ts", `http://127.0.0.1:${upstreamPort}`, proxyToken], {}, /^(\d+)$/m);
const direct: Target = { name: "upstream directly", url: `http://127.0.0.1:${upstreamPort}`, headers: { authorization: "Bearer sk-bench-upstream" } };
const raw: Target = { name: "minimal proxy", url: `http://127.0.0.1:${proxy.match[1]}`, headers: { authorization: `Bearer ${proxyToken}` }, pid: proxy.child.pid! };
const gateway = await startGatewayTarget(upstreamPort, 1);
await new Promise((resolve) => setTimeout(resolve, 2000));
const justStarted = { proxy: memoryMb(raw.pid!), gateway: memoryMb(gateway.pid!) };
// V8 gives back what start-up left behind once a process has idled for a while (its memory
// reducer runs 8 s after a full collection, 10-20 s after start here): the footprint of a
// process waiting for requests.
await new Promise((resolve) => setTimeout(resolve, 28_000));
const idle = { proxy: memoryMb(raw.pid!), gateway: memoryMb(gateway.pid!) };

// The same gateway storing no request rows: what the log costs. It idles while the others run.
const unlogged = await startGatewayTarget(upstreamPort, 1, { REQUEST_LOG: "off" });
// The checkout to compare with, when given: measured in the same rounds as this one.
const baseline = baselineRoot ? { ...(await startGatewayTarget(upstreamPort, 1, {}, baselineRoot)), name: "baseline gateway" } : undefined;

const results: Record<string, unknown> = { node: process.version, cores, seconds, rounds, connections, rate, startedRssMb: justStarted, idleRssMb: idle };
const table: string[][] = [];
const ratio = (a: number, b: number) => (b > 0 ? (a / b).toFixed(2) : "-");

const cpuRatio = (c: Load, b: Load) => `${ratio(c.cpuUsPerRequest ?? 0, b.cpuUsPerRequest ?? 0)}x`;
{
  const chat = "/chat/completions";
  const [a, b, c, off, session, windows, base] = await interleaved([
    { target: direct, path: chat, body: chatBody },
    { target: raw, path: chat, body: chatBody },
    { target: gateway, path: `/v1${chat}`, body: chatBody },
    { target: unlogged, path: `/v1${chat}`, body: chatBody },
    // A Codex-style session header (one pin lookup per request) and a token with three limit windows.
    { target: gateway, path: `/v1${chat}`, body: chatBody, headers: { session_id: "bench-session" } },
    { target: gateway, path: `/v1${chat}`, body: chatBody, headers: { authorization: `Bearer ${gateway.windowedToken}` } },
    ...(baseline ? [{ target: baseline, path: `/v1${chat}`, body: chatBody }] : []),
  ]);
  unlogged.stop();
  if (base) {
    results.baselineChat = base;
    table.push(["chat req/s, baseline checkout", "-", "-", base.rps.toFixed(0), `this: ${ratio(c!.rps, base.rps)} of baseline`]);
    table.push(["chat CPU µs/req, baseline checkout", "-", "-", String(base.cpuUsPerRequest), `this: ${cpuRatio(c!, base)} baseline`]);
  }
  results.chat = { direct: a, proxy: b, gateway: c, requestLogOff: off };
  table.push(["chat req/s", a!.rps.toFixed(0), b!.rps.toFixed(0), c!.rps.toFixed(0), ratio(c!.rps, b!.rps)]);
  table.push(["chat CPU µs/req", "-", String(b!.cpuUsPerRequest), String(c!.cpuUsPerRequest), cpuRatio(c!, b!)]);
  table.push(["chat req/s, request log off (REQUEST_LOG=off)", "-", "-", off!.rps.toFixed(0), `log on: ${ratio(c!.rps, off!.rps)} of off`]);
  table.push(["chat CPU µs/req, request log off", "-", "-", String(off!.cpuUsPerRequest), `log on: ${cpuRatio(c!, off!)}`]);
  results.chatWithSession = session;
  results.chatWithLimitWindows = windows;
  table.push(["chat CPU µs/req, with a session (affinity)", "-", "-", String(session!.cpuUsPerRequest), `${cpuRatio(session!, c!)} without`]);
  table.push(["chat CPU µs/req, token with 3 limit windows", "-", "-", String(windows!.cpuUsPerRequest), `${cpuRatio(windows!, c!)} without`]);
  table.push(["chat failed", String(a!.failed), String(b!.failed), String(c!.failed + off!.failed + session!.failed + windows!.failed), ""]);

  const anthropicHeaders = { "anthropic-version": "2023-06-01" };
  const [sa, sb, sc, translated, baseStream, baseTranslated] = await interleaved([
    { target: direct, path: chat, body: streamBody },
    { target: raw, path: chat, body: streamBody },
    { target: gateway, path: `/v1${chat}`, body: streamBody },
    { target: gateway, path: "/v1/messages", body: anthropicBody, headers: anthropicHeaders },
    ...(baseline
      ? [
          { target: baseline, path: `/v1${chat}`, body: streamBody },
          { target: baseline, path: "/v1/messages", body: anthropicBody, headers: anthropicHeaders },
        ]
      : []),
  ]);
  if (baseline) baseline.stop();
  if (baseStream && baseTranslated) {
    results.baselineStream = { passthrough: baseStream, anthropicToOpenAI: baseTranslated };
    table.push(["stream req/s, baseline checkout", "-", "-", baseStream.rps.toFixed(0), `this: ${ratio(sc!.rps, baseStream.rps)} of baseline`]);
    table.push(["stream CPU µs/req, baseline checkout", "-", "-", String(baseStream.cpuUsPerRequest), `this: ${cpuRatio(sc!, baseStream)} baseline`]);
    table.push(["Anthropic -> OpenAI stream CPU µs/req, baseline", "-", "-", String(baseTranslated.cpuUsPerRequest), `this: ${cpuRatio(translated!, baseTranslated)} baseline`]);
  }
  results["stream (20 chunks)"] = { direct: sa, proxy: sb, gateway: sc };
  results.translation = { anthropicToOpenAI: translated, passthrough: sc };
  table.push(["stream (20 chunks) req/s", sa!.rps.toFixed(0), sb!.rps.toFixed(0), sc!.rps.toFixed(0), ratio(sc!.rps, sb!.rps)]);
  table.push(["stream (20 chunks) CPU µs/req", "-", String(sb!.cpuUsPerRequest), String(sc!.cpuUsPerRequest), cpuRatio(sc!, sb!)]);
  table.push(["Anthropic client -> OpenAI upstream, stream req/s", "-", "-", translated!.rps.toFixed(0), `${ratio(translated!.rps, sc!.rps)} of passthrough`]);
  table.push(["Anthropic client -> OpenAI upstream, CPU µs/req", "-", "-", String(translated!.cpuUsPerRequest), `${cpuRatio(translated!, sc!)} passthrough`]);
  table.push(["stream failed", String(sa!.failed), String(sb!.failed), String(sc!.failed + translated!.failed), ""]);
}
const peak = { proxy: memoryMb(raw.pid!).peak, gateway: memoryMb(gateway.pid!).peak };

for (const [scenario, path, body] of [
  ["chat", "/chat/completions", chatBody],
  ["stream", "/chat/completions", streamBody],
] as const) {
  const a = await atFixedRate(direct, path, body);
  const b = await atFixedRate(raw, path, body);
  const c = await atFixedRate(gateway, `/v1${path}`, body);
  results[`${scenario} at ${rate}/s`] = { direct: a, proxy: b, gateway: c };
  const added = (x: number, y: number) => `+${(x - y).toFixed(2)}`;
  table.push([
    `${scenario} at ${rate}/s added p50 / p99 ms`,
    `${a.p50.toFixed(2)} / ${a.p99.toFixed(2)}`,
    `${added(b.p50, a.p50)} / ${added(b.p99, a.p99)}`,
    `${added(c.p50, a.p50)} / ${added(c.p99, a.p99)}`,
    "",
  ]);
  table.push([`${scenario} at ${rate}/s CPU µs/req`, "-", String(b.cpuUsPerRequest), String(c.cpuUsPerRequest), `${ratio(c.cpuUsPerRequest ?? 0, b.cpuUsPerRequest ?? 0)}x`]);
  if (scenario === "stream")
    table.push([`stream first byte added p50 ms`, a.firstByteP50.toFixed(2), added(b.firstByteP50, a.firstByteP50), added(c.firstByteP50, a.firstByteP50), ""]);
}
table.push([
  "RSS 2 s after start / idle 30 s / peak MB",
  "-",
  `${justStarted.proxy.rss} / ${idle.proxy.rss} / ${peak.proxy}`,
  `${justStarted.gateway.rss} / ${idle.gateway.rss} / ${peak.gateway}`,
  "",
]);
results.peakRssMb = peak;
// Next loads on the first console request: what a process that also serves the console holds.
const page = await request(`${gateway.url}/setup`);
await page.body.dump();
if (page.statusCode !== 200) throw new Error(`the console page answered ${page.statusCode}`);
await new Promise((resolve) => setTimeout(resolve, 1000));
const withConsole = memoryMb(gateway.pid!).rss;
results.rssAfterConsolePageMb = withConsole;
table.push(["RSS after one console page MB", "-", "-", String(withConsole), ""]);
// What coding agents send (scripts/bench/agent-workload.ts), beside the floor.
const floorWith = async (flag: string): Promise<Target> => {
  const started = await startProcess(
    [...pin(0), process.execPath, "--import", "tsx", "scripts/bench/raw-proxy.ts", `http://127.0.0.1:${upstreamPort}`, proxyToken, flag],
    // --scan reads the gateway's shape limits, and with them its environment: the stores the gateway is given.
    { DATABASE_URL: "", REDIS_URL: "" },
    /^(\d+)$/m,
  );
  return { name: `minimal proxy ${flag}`, url: `http://127.0.0.1:${started.match[1]}`, headers: raw.headers, pid: started.child.pid! };
};
const [scanning, reparsing] = [await floorWith("--scan"), await floorWith("--parse")];
await agentWorkload({ raw, scanning, reparsing, gateway, smallChatBody: chatBody, table, results, freshGateway: () => startGatewayTarget(upstreamPort, 1) });
gateway.stop();

if (cores > 1) {
  // Every core for the gateway and for the floor, each as 2 processes (unpinned: they share
  // the cores with the upstream and the load generator, so this is a comparison, not a ceiling).
  const two = await startGatewayTarget(upstreamPort, 2);
  const twoProxies = await startProcess([process.execPath, "--import", "tsx", "scripts/bench/raw-proxy.ts", `http://127.0.0.1:${upstreamPort}`, proxyToken, "2"], {}, /^(\d+)$/m);
  const rawTwo: Target = { name: "minimal proxy x2", url: `http://127.0.0.1:${twoProxies.match[1]}`, headers: raw.headers };
  const single = (results.chat as { gateway: Load; proxy: Load }).gateway;
  const [bothProxies, both] = await interleaved([
    { target: rawTwo, path: "/chat/completions", body: chatBody },
    { target: { ...two, pid: undefined }, path: "/v1/chat/completions", body: chatBody },
  ]);
  results["chat, 2 processes"] = { proxy: bothProxies, gateway: both };
  table.push(["chat req/s, 2 processes (every core, shared)", "-", bothProxies!.rps.toFixed(0), both!.rps.toFixed(0), ratio(both!.rps, bothProxies!.rps)]);
  table.push(["  gateway x2 against 1 gateway process", "-", "-", "-", `${ratio(both!.rps, single.rps)} of 1 process`]);
  two.stop();
  twoProxies.child.kill("SIGTERM");
}

const widths = [52, 14, 16, 16, 22];
const line = (cells: string[]) => cells.map((cell, index) => (index === 0 ? cell.padEnd(widths[index]!) : cell.padStart(widths[index]!))).join(" ");
console.log(`\n${seconds}s per run, medians of ${rounds} interleaved rounds, ${connections} connections, Node ${process.version}, ${cores} cores`);
console.log(line(["", "(a) direct", "(b) proxy", "(c) gateway", "(c)/(b)"]));
for (const row of table) console.log(line(row));
fs.mkdirSync(path.join(ROOT, "scripts", ".tmp"), { recursive: true });
fs.writeFileSync(path.join(ROOT, "scripts", ".tmp", "bench-results.json"), JSON.stringify(results, null, 2));
console.log("\nwritten: scripts/.tmp/bench-results.json");
process.exit(0);
