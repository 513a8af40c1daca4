// `npm run bench`'s agent workload, beside the floor (the minimal proxy) in the same rounds:
// Claude Code turns relayed to an Anthropic upstream, Codex sessions relayed as /responses
// and as chat completions, and Claude Code turns translated to an OpenAI upstream, each at 100 KB,
// 300 KB and 1 MB, streamed, also against the floor plus one scan of each body (the Anthropic
// and chat relays) and plus one parse and one serialise (the naive translation); small
// requests' latency while 300 KB ones run; and many long streams held open at once (memory
// per open stream, every event and every log row there).
// Options: BENCH_AGENT_SIZES (bytes, comma-separated: 100000,300000,1000000),
// BENCH_AGENT_CONNECTIONS (8), BENCH_HELD_TURNS (64), BENCH_LONG_STREAMS (500), BENCH_LONG_SECONDS (60).
import { randomBytes } from "node:crypto";
import { claudeCodeBody, claudeCodeHeaders, codexChatBody, codexResponsesBody } from "./agent-bodies";
import { atFixedRate, interleaved, measure, pin, startProcess, type Load, type Target } from "./harness";
import { countLogRows, measureLongStreams, type LongStreamsResult } from "./long-streams";

const sizes = (process.env.BENCH_AGENT_SIZES ?? "100000,300000,1000000").split(",").map(Number);
const agentConnections = Number(process.env.BENCH_AGENT_CONNECTIONS ?? 8);
const longStreams = Number(process.env.BENCH_LONG_STREAMS ?? 500);
const longSeconds = Number(process.env.BENCH_LONG_SECONDS ?? 60);
const heldTurns = Number(process.env.BENCH_HELD_TURNS ?? 64);

export interface AgentWorkloadTargets {
  raw: Target;
  /** The floor that also scans each body (raw-proxy.ts --scan): what no validating relay can avoid. */
  scanning: Target;
  /** The floor that also parses and re-serialises each body (raw-proxy.ts --parse): the naive translation. */
  reparsing: Target;
  gateway: Target & { adminKey: string; admin(route: string, body: unknown): Promise<any> };
  /** A small chat completions body, for latency while large ones run. */
  smallChatBody: string;
  /** Starts another gateway process as `gateway` was started (the held turns' memory is read from a fresh one). */
  freshGateway: () => Promise<Target & { admin(route: string, body: unknown): Promise<any>; stop(): void }>;
  table: string[][];
  results: Record<string, unknown>;
}

const ratio = (a: number, b: number) => (b > 0 ? (a / b).toFixed(2) : "-");
const kb = (bytes: number) => `${Math.round(bytes / 1000)} KB`;

export async function agentWorkload(targets: AgentWorkloadTargets): Promise<void> {
  const { raw, scanning, reparsing, gateway, table, results } = targets;
  const anthropicHeaders = claudeCodeHeaders();
  for (const size of sizes) {
    const relayed = claudeCodeBody(size, "claude-bench");
    const translated = claudeCodeBody(size, "bench-model");
    const codex = codexChatBody(size, "bench-model");
    const codexResponses = codexResponsesBody(size, "bench-model");
    const common = { connections: agentConnections, sampleRss: true };
    const [
      proxyAnthropic,
      gatewayAnthropic,
      proxyOpenAI,
      gatewayOpenAI,
      gatewayTranslated,
      proxyResponses,
      gatewayResponses,
      scanningAnthropic,
      scanningOpenAI,
      reparsingAnthropic,
    ] = (await interleaved([
      { ...common, target: raw, path: "/v1/messages", body: relayed, headers: anthropicHeaders },
      { ...common, target: gateway, path: "/v1/messages", body: relayed, headers: anthropicHeaders },
      { ...common, target: raw, path: "/chat/completions", body: codex },
      { ...common, target: gateway, path: "/v1/chat/completions", body: codex },
      { ...common, target: gateway, path: "/v1/messages", body: translated, headers: anthropicHeaders },
      { ...common, target: raw, path: "/responses", body: codexResponses },
      { ...common, target: gateway, path: "/v1/responses", body: codexResponses },
      { ...common, target: scanning, path: "/v1/messages", body: relayed, headers: anthropicHeaders },
      { ...common, target: scanning, path: "/chat/completions", body: codex },
      { ...common, target: reparsing, path: "/v1/messages", body: relayed, headers: anthropicHeaders },
    ])) as [Load, Load, Load, Load, Load, Load, Load, Load, Load, Load];
    results[`agent ${kb(size)}`] = {
      bytes: { anthropic: relayed.length, openai: codex.length, responses: codexResponses.length },
      anthropicRelay: { proxy: proxyAnthropic, scanningProxy: scanningAnthropic, gateway: gatewayAnthropic },
      openAIRelay: { proxy: proxyOpenAI, scanningProxy: scanningOpenAI, gateway: gatewayOpenAI },
      responsesRelay: { proxy: proxyResponses, gateway: gatewayResponses },
      anthropicToOpenAI: { reparsingProxy: reparsingAnthropic, gateway: gatewayTranslated },
    };
    const cpu = (load: Load) => String(load.cpuUsPerRequest);
    const perRequest = (load: Load, bytes: number) => {
      const rise = ((load.rssRiseMb ?? 0) * 1024 * 1024) / agentConnections;
      return `${Math.round(rise / 1024)} KB (${(rise / bytes).toFixed(1)}x)`;
    };
    table.push([
      `agent ${kb(relayed.length)} Anthropic relay CPU µs/req`,
      "-",
      cpu(proxyAnthropic),
      cpu(gatewayAnthropic),
      `${ratio(gatewayAnthropic.cpuUsPerRequest!, proxyAnthropic.cpuUsPerRequest!)}x`,
    ]);
    table.push([
      `agent ${kb(codex.length)} OpenAI chat relay CPU µs/req`,
      "-",
      cpu(proxyOpenAI),
      cpu(gatewayOpenAI),
      `${ratio(gatewayOpenAI.cpuUsPerRequest!, proxyOpenAI.cpuUsPerRequest!)}x`,
    ]);
    table.push([
      `agent ${kb(codexResponses.length)} OpenAI Responses relay CPU µs/req`,
      "-",
      cpu(proxyResponses),
      cpu(gatewayResponses),
      `${ratio(gatewayResponses.cpuUsPerRequest!, proxyResponses.cpuUsPerRequest!)}x`,
    ]);
    table.push([
      `agent ${kb(translated.length)} Anthropic -> OpenAI CPU µs/req`,
      "-",
      cpu(proxyAnthropic),
      cpu(gatewayTranslated),
      `${ratio(gatewayTranslated.cpuUsPerRequest!, proxyAnthropic.cpuUsPerRequest!)}x relay floor`,
    ]);
    // The same loads against the floor that scans each body (the least a validating relay
    // does) and the floor that parses and re-serialises it (the naive translation).
    table.push([
      "  Anthropic / chat relay vs a scanning floor",
      "-",
      `${cpu(scanningAnthropic)} / ${cpu(scanningOpenAI)}`,
      `${cpu(gatewayAnthropic)} / ${cpu(gatewayOpenAI)}`,
      `${ratio(gatewayAnthropic.cpuUsPerRequest!, scanningAnthropic.cpuUsPerRequest!)}x / ${ratio(gatewayOpenAI.cpuUsPerRequest!, scanningOpenAI.cpuUsPerRequest!)}x`,
    ]);
    table.push([
      "  translated vs a parse + serialise floor",
      "-",
      cpu(reparsingAnthropic),
      cpu(gatewayTranslated),
      `${ratio(gatewayTranslated.cpuUsPerRequest!, reparsingAnthropic.cpuUsPerRequest!)}x`,
    ]);
    table.push([
      `agent ${kb(relayed.length)} req/s (relay, OpenAI, translated)`,
      "-",
      `${proxyAnthropic.rps.toFixed(0)}, ${proxyOpenAI.rps.toFixed(0)}`,
      `${gatewayAnthropic.rps.toFixed(0)}, ${gatewayOpenAI.rps.toFixed(0)}, ${gatewayTranslated.rps.toFixed(0)}`,
      `${ratio(gatewayAnthropic.rps, proxyAnthropic.rps)}, ${ratio(gatewayOpenAI.rps, proxyOpenAI.rps)}`,
    ]);
    table.push([
      `agent ${kb(relayed.length)} RSS rise per in-flight request`,
      "-",
      perRequest(proxyAnthropic, relayed.length),
      `${perRequest(gatewayAnthropic, relayed.length)}; translated ${perRequest(gatewayTranslated, translated.length)}`,
      "",
    ]);
    const failed = [gatewayAnthropic, gatewayOpenAI, gatewayTranslated, gatewayResponses].reduce((sum, load) => sum + load.failed, 0);
    const floorsFailed = [proxyAnthropic, proxyOpenAI, proxyResponses, scanningAnthropic, scanningOpenAI, reparsingAnthropic].reduce((sum, load) => sum + load.failed, 0);
    table.push([`agent ${kb(relayed.length)} failed`, "-", String(floorsFailed), String(failed), ""]);
  }
  await smallWhileLarge(targets);
  await heldAgentTurns(targets);
  await manyLongStreams(targets);
}

/** The p99 of small chat requests at a fixed rate, alone and while 300 KB turns keep the target busy. */
async function smallWhileLarge({ raw, gateway, smallChatBody, table, results }: AgentWorkloadTargets): Promise<void> {
  const large = claudeCodeBody(300_000, "claude-bench");
  const headers = claudeCodeHeaders();
  const row: string[] = [];
  for (const [target, chatPath, largePath] of [
    [raw, "/chat/completions", "/v1/messages"],
    [gateway, "/v1/chat/completions", "/v1/messages"],
  ] as const) {
    const alone = await atFixedRate(target, chatPath, smallChatBody);
    const [loaded, busy] = await Promise.all([
      atFixedRate(target, chatPath, smallChatBody),
      measure({ target, path: largePath, body: large, headers, connections: agentConnections }, 7),
    ]);
    results[`small chat p99 while 300 KB turns run, ${target === raw ? "proxy" : "gateway"}`] = { alone, loaded, large: busy };
    row.push(`${alone.p99.toFixed(1)} -> ${loaded.p99.toFixed(1)}`);
  }
  table.push(["small chat p99 ms alone -> while 300 KB turns run", "-", row[0]!, row[1]!, ""]);
}

/**
 * Memory per agent turn held in flight: BENCH_HELD_TURNS 300 KB turns sent at once to an
 * upstream that streams each answer for 5 s, so the gateway holds every one at the same
 * time (with autocannon most wait in the kernel's socket buffers instead). Each case is read
 * from a fresh gateway process, whose heap has not grown yet under other loads (a process
 * keeps the memory it grew to, so a second load there shows no rise): the RSS rise over
 * the turns, per turn, against the body's size, for a Claude Code turn translated to an
 * OpenAI upstream and a Codex chat turn relayed.
 */
export async function heldAgentTurns({ freshGateway, table, results }: AgentWorkloadTargets): Promise<void> {
  if (heldTurns <= 0) return;
  const slow = await startProcess([...pin(1), process.execPath, "--import", "tsx", "scripts/bench/slow-upstream.ts"], { STREAM_SECONDS: "5", INTERVAL_MS: "100" }, /^(\d+)$/m);
  const cases = [
    { name: "Claude Code turn translated", path: "/v1/messages", headers: claudeCodeHeaders(), body: claudeCodeBody(300_000, "held-model") },
    { name: "Codex chat turn relayed", path: "/v1/chat/completions", headers: {}, body: codexChatBody(300_000, "held-model") },
  ];
  const cells: string[] = [];
  for (const { name, path, headers, body } of cases) {
    const gateway = await freshGateway();
    await gateway.admin("/api/admin/channels", {
      name: "bench held",
      type: "openai",
      baseUrl: `http://127.0.0.1:${slow.match[1]}`,
      apiKey: "sk-bench-upstream",
      models: ["held-model"],
    });
    const target = { url: gateway.url, headers: { ...gateway.headers, ...headers }, pid: gateway.pid!, path };
    // A few turns first: the code's first run (JIT, modules loaded on first use) is not a turn's memory.
    await measureLongStreams({ target, streams: 4, body, expectedEvents: 0 });
    const held = await measureLongStreams({ target, streams: heldTurns, body, expectedEvents: 0 });
    gateway.stop();
    const perTurn = held.rssPerStreamKb * 1024;
    results[`${heldTurns} held 300 KB turns: ${name}`] = { bytes: body.length, ...held };
    cells.push(`${name}: ${Math.round(perTurn / 1024)} KB (${(perTurn / body.length).toFixed(1)}x), ${held.failed} failed`);
  }
  table.push([`${heldTurns} 300 KB turns held in flight, fresh process: RSS rise per turn`, "-", "-", cells.join("; "), ""]);
  slow.child.kill("SIGTERM");
}

/** BENCH_LONG_STREAMS streams of BENCH_LONG_SECONDS open at once, through the floor and the gateway. */
async function manyLongStreams({ gateway, table, results }: AgentWorkloadTargets): Promise<void> {
  if (longStreams <= 0) return;
  const slow = await startProcess(
    [...pin(1), process.execPath, "--import", "tsx", "scripts/bench/slow-upstream.ts"],
    { STREAM_SECONDS: String(longSeconds), INTERVAL_MS: "100" },
    /^(\d+)$/m,
  );
  const origin = `http://127.0.0.1:${slow.match[1]}`;
  const token = `sk-${randomBytes(16).toString("hex")}`;
  // The floor gets as many upstream connections as there are streams, as the gateway has.
  const proxy = await startProcess([...pin(0), process.execPath, "--import", "tsx", "scripts/bench/raw-proxy.ts", origin, token, "1", String(longStreams * 2)], {}, /^(\d+)$/m);
  await gateway.admin("/api/admin/channels", { name: "bench slow", type: "openai", baseUrl: origin, apiKey: "sk-bench-upstream", models: ["slow-model"] });
  const body = JSON.stringify({ model: "slow-model", stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: "Stream for a while." }] });
  // Chunks, then the finish chunk and the usage chunk (slow-upstream.ts).
  const expectedEvents = (longSeconds * 1000) / 100 + 2;
  const floor = { url: `http://127.0.0.1:${proxy.match[1]}`, headers: { authorization: `Bearer ${token}` }, pid: proxy.child.pid!, path: "/v1/chat/completions" };
  const through = { url: gateway.url, headers: gateway.headers, pid: gateway.pid!, path: "/v1/chat/completions" };
  // Warmed first: the first streams through a process pay its start-up.
  for (const target of [floor, through])
    await measureLongStreams({ target, streams: 20, body: body.replace('"stream":true', '"stream":false'), expectedEvents: 0 }).catch(() => undefined);
  const since = new Date().toISOString();
  const proxied: LongStreamsResult = await measureLongStreams({ target: floor, streams: longStreams, body, expectedEvents });
  const served: LongStreamsResult = await measureLongStreams({ target: through, streams: longStreams, body, expectedEvents });
  const rows = await countLogRows(gateway.url, gateway.adminKey, "slow-model", since);
  results[`${longStreams} streams of ${longSeconds} s`] = { proxy: proxied, gateway: served, gatewayLogRows: rows };
  table.push([
    `${longStreams} streams of ${longSeconds} s: KB per open stream`,
    "-",
    String(Math.round(proxied.rssPerStreamKb)),
    String(Math.round(served.rssPerStreamKb)),
    `${ratio(served.rssPerStreamKb, proxied.rssPerStreamKb)}x`,
  ]);
  table.push([`${longStreams} streams: CPU s over the run`, "-", proxied.cpuSeconds.toFixed(1), served.cpuSeconds.toFixed(1), `${ratio(served.cpuSeconds, proxied.cpuSeconds)}x`]);
  table.push([
    `${longStreams} streams: whole / failed / events lost / log rows`,
    "-",
    `${proxied.completed} / ${proxied.failed} / ${proxied.lostEvents}`,
    `${served.completed} / ${served.failed} / ${served.lostEvents} / ${rows}`,
    "",
  ]);
  proxy.child.kill("SIGTERM");
  slow.child.kill("SIGTERM");
}
