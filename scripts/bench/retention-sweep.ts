// Measures what a retention sweep costs the request path: 100k expired log rows are put
// into a fresh SQLite gateway, then the same load runs while the sweep deletes them and
// again once it is done. Prints latency percentiles, throughput, the request log's queue
// depth and how long the sweep took. Run: `npx tsx scripts/bench/retention-sweep.ts`
// (BENCH_ROWS, BENCH_CONNECTIONS). Numbers only: no pass or fail.
import path from "node:path";
import autocannon from "autocannon";
import Database from "better-sqlite3";
import { startGateway } from "../../tests/helpers/start-gateway";

const rows = Number(process.env.BENCH_ROWS ?? 100_000);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 8);

const gateway = await startGateway({ LOG_RETENTION: "1d", RETENTION_SWEEP_INTERVAL: "4s", LOG_FLUSH_INTERVAL_MS: "200" });
try {
  const token = (await gateway.admin("POST", "/api/admin/tokens", { name: "bench" })).body as { id: string; key: string };
  const file = path.join(gateway.dataDir, "gateway.db");
  const started = Date.now();
  const database = new Database(file, { timeout: 30_000 });
  const insert = database.prepare(
    `INSERT INTO "RequestLog" ("id", "createdAt", "endpoint", "clientFormat", "method", "tokenId", "channelId", "model", "status", "promptTokens", "completionTokens", "latencyMs", "costUsd")
     VALUES (?, ?, '/v1/chat/completions', 'openai', 'POST', ?, 'builtin-mock', ?, 200, 10, 5, 3, 0.001)`,
  );
  database.transaction(() => {
    for (let index = 0; index < rows; index += 1) {
      const createdAt = new Date(started - 2 * 86_400_000 - index * 1000).toISOString().replace("Z", "+00:00");
      insert.run(`old_${index}`, createdAt, token.id, index % 3 ? "mock-chat" : "other");
    }
  })();
  // The sweep deletes the oldest first: old_<rows-1> goes first, old_0 last.
  const exists = database.prepare(`SELECT 1 FROM "RequestLog" WHERE "id" = ?`);
  const count = () => (exists.get("old_0") ? (exists.get(`old_${rows - 1}`) ? rows : 1) : 0);
  process.stdout.write(`inserted ${rows} expired rows in ${Date.now() - started} ms\n`);

  const queueDepth = async () => {
    const text = await (await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${gateway.adminKey}` } })).text();
    return Number(/gateway_log_queue_depth (\d+)/.exec(text)?.[1] ?? 0);
  };
  const load = async (label: string, until: () => boolean, maxSeconds: number) => {
    let maxDepth = 0;
    const sampler = setInterval(() => void queueDepth().then((depth) => (maxDepth = Math.max(maxDepth, depth))), 100);
    let finish: (result: autocannon.Result) => void = () => undefined;
    const finished = new Promise<autocannon.Result>((resolve) => (finish = resolve));
    const instance = autocannon(
      {
        url: `${gateway.url}/v1/chat/completions`,
        connections,
        duration: maxSeconds,
        method: "POST",
        headers: { authorization: `Bearer ${token.key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "mock-chat", messages: [{ role: "user", content: "hi" }], max_tokens: 5 }),
      },
      (_error, result) => finish(result),
    );
    const watcher = setInterval(() => {
      if (until()) instance.stop();
    }, 50);
    const result = await finished;
    clearInterval(watcher);
    clearInterval(sampler);
    const line = `${label.padEnd(16)} ${String(result.requests.total).padStart(6)} requests in ${(result.duration).toFixed(1)} s: ${result.requests.average.toFixed(0)} req/s, latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms; non-2xx ${result.non2xx}, errors ${result.errors}; log queue max ${maxDepth}`;
    process.stdout.write(`${line}\n`);
    return result;
  };

  // The first sweep starts within 4 s of start-up: wait for it to begin deleting.
  while (count() === rows) await new Promise((resolve) => setTimeout(resolve, 20));
  const sweepStarted = Date.now();
  let sweepEnded = 0;
  await load(
    "during sweep",
    () => {
      if (count() > 0) return false;
      sweepEnded ||= Date.now();
      return true;
    },
    120,
  );
  sweepEnded ||= Date.now();
  process.stdout.write(`sweep deleted ${rows} rows in ${((sweepEnded - sweepStarted) / 1000).toFixed(1)} s (batches of 500, 30 ms apart)\n`);
  const during = sweepEnded - sweepStarted;
  let elapsed = Date.now();
  await load("no sweep", () => Date.now() - elapsed >= during, Math.ceil(during / 1000) + 1);
  elapsed = Date.now();
  const rollup = database.prepare(`SELECT COUNT(*) AS days, SUM("requests") AS requests FROM "UsageRollup"`).get();
  process.stdout.write(`rollup rows: ${JSON.stringify(rollup)}\n`);
  database.close();
} finally {
  await gateway.stop();
}
