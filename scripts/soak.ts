// A bounded soak (not part of `npm test`): mixed client formats, streaming and not,
// against a channel whose upstream fails one request in ten, with a healthy fallback.
// Reports lost log rows, 5xx answers (none should reach a client: every fault here can
// fail over) and the gateway's RSS at start and end. SOAK_SECONDS (default 180) and
// SOAK_CONCURRENCY (default 16) bound it.
import fs from "node:fs";
import Database from "better-sqlite3";
import { startFaultUpstream } from "../tests/helpers/fault-upstream";
import { startGateway } from "../tests/helpers/start-gateway";

const SECONDS = Number(process.env.SOAK_SECONDS ?? 180);
const CONCURRENCY = Number(process.env.SOAK_CONCURRENCY ?? 16);
const KEY = "sk-soak-upstream-0123456789";

const rssMb = (pid: number) => {
  const match = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? Math.round(Number(match[1]) / 1024) : NaN;
};

const flaky = await startFaultUpstream(KEY);
const healthy = await startFaultUpstream(KEY, { healthy: true, reply: "a steady answer from the fallback channel" });
const gateway = await startGateway({ LOG_LEVEL: "error", UPSTREAM_TIMEOUT_MS: "5000", ROUTING_BACKOFF_MS: "10" }, { processes: 1 });
try {
  for (const [name, upstream, priority] of [
    ["flaky", flaky, 10],
    ["fallback", healthy, 0],
  ] as const) {
    const created = await gateway.admin("POST", "/api/admin/channels", { type: "openai", name, baseUrl: upstream.baseUrl, apiKey: KEY, models: ["flaky.soak"], priority });
    if (created.status !== 201) throw new Error(`channel: ${JSON.stringify(created.body)}`);
  }
  const key = (await gateway.admin("POST", "/api/admin/tokens", { name: "soak" })).body.key as string;
  const pid = gateway.pids[0]!;
  const rssStart = rssMb(pid);
  let rssPeak = rssStart;

  const requests: Record<string, (stream: boolean) => [string, RequestInit]> = {
    openai: (stream) => [
      `${gateway.url}/v1/chat/completions`,
      {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "flaky.soak", stream, messages: [{ role: "user", content: "hello" }] }),
      },
    ],
    anthropic: (stream) => [
      `${gateway.url}/v1/messages`,
      {
        method: "POST",
        headers: { "x-api-key": key, "anthropic-version": "2023-06-01", "content-type": "application/json" },
        body: JSON.stringify({ model: "flaky.soak", stream, max_tokens: 64, messages: [{ role: "user", content: "hello" }] }),
      },
    ],
    gemini: (stream) => [
      `${gateway.url}/v1beta/models/flaky.soak:${stream ? "streamGenerateContent?alt=sse" : "generateContent"}`,
      {
        method: "POST",
        headers: { "x-goog-api-key": key, "content-type": "application/json" },
        body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hello" }] }] }),
      },
    ],
  };
  const formats = Object.keys(requests);
  const statuses = new Map<number, number>();
  let sent = 0;
  let brokenStreams = 0;
  const deadline = Date.now() + SECONDS * 1000;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMb(pid))), 1000);
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < deadline) {
        const [url, init] = requests[formats[Math.floor(Math.random() * formats.length)]!]!(Math.random() < 0.5);
        sent += 1;
        const response = await fetch(url, init);
        const text = await response.text();
        // A stream whose upstream broke after it began ends with an error event.
        if (response.status === 200 && /"error"/.test(text)) brokenStreams += 1;
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      }
    }),
  );
  clearInterval(sampler);
  const channels = (await gateway.admin("GET", "/api/admin/channels")).body.data as { name: string; state: unknown }[];
  await gateway.admin("GET", "/api/admin/logs?limit=1"); // writes the queued rows
  const database = new Database(`${gateway.dataDir}/gateway.db`, { readonly: true });
  const rows = (database.prepare(`SELECT COUNT(*) AS n FROM "RequestLog" WHERE "model" = 'flaky.soak'`).get() as { n: number }).n;
  const failovers = (database.prepare(`SELECT COUNT(*) AS n FROM "RequestLog" WHERE "model" = 'flaky.soak' AND json_array_length("attempts") > 1`).get() as { n: number }).n;
  database.close();
  const serverErrors = [...statuses].filter(([status]) => status >= 500).reduce((sum, [, count]) => sum + count, 0);
  const report = {
    seconds: SECONDS,
    concurrency: CONCURRENCY,
    requests: sent,
    statuses: Object.fromEntries(statuses),
    logRows: rows,
    lostLogRows: sent - rows,
    failovers,
    upstreamCalls: { flaky: flaky.calls.get("flaky.soak") ?? 0, fallback: healthy.calls.get("flaky.soak") ?? 0 },
    serverErrors,
    channelStates: Object.fromEntries(channels.map((channel) => [channel.name, channel.state])),
    streamsEndedWithError: brokenStreams,
    rssMb: { start: rssStart, peak: rssPeak, end: rssMb(pid) },
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  process.exitCode = report.lostLogRows === 0 && serverErrors === 0 ? 0 : 1;
} finally {
  await gateway.stop();
  await flaky.close();
  await healthy.close();
}
