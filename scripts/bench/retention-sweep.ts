// Measures what a retention sweep costs the request path: expired log rows (100k by
// default; millions with BENCH_ROWS) are put into a fresh gateway's store, then the same
// load runs while the sweep deletes them and again once it is done. Prints latency
// percentiles, throughput, the request log's queue depth and how long the sweep took.
// SQLite by default; with DATABASE_URL (a PostgreSQL server's URL) the gateway runs on a
// new database there. Run: `npx tsx scripts/bench/retention-sweep.ts` (BENCH_ROWS,
// BENCH_CONNECTIONS). Numbers only: no pass or fail.
import path from "node:path";
import autocannon from "autocannon";
import Database from "better-sqlite3";
import pg from "pg";
import { createTestDatabase, startGateway } from "../../tests/helpers/start-gateway";

const rows = Number(process.env.BENCH_ROWS ?? 100_000);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 8);
const postgresUrl = process.env.DATABASE_URL ? await createTestDatabase(process.env.DATABASE_URL) : undefined;

const gateway = await startGateway({
  LOG_RETENTION: "1d",
  RETENTION_SWEEP_INTERVAL: "4s",
  LOG_FLUSH_INTERVAL_MS: "200",
  ...(postgresUrl ? { DATABASE_URL: postgresUrl } : {}),
});

/** The expired rows, inserted by the database itself; the oldest is old_<rows-1>. */
interface Expired {
  insert(tokenId: string, started: number): Promise<void>;
  exists(id: string): Promise<boolean>;
  hourTotals(): Promise<unknown>;
  close(): Promise<void>;
}

function sqliteRows(file: string): Expired {
  const database = new Database(file, { timeout: 30_000 });
  const exists = database.prepare(`SELECT 1 FROM "RequestLog" WHERE "id" = ?`);
  return {
    async insert(tokenId, started) {
      const insert = database.prepare(
        `INSERT INTO "RequestLog" ("id", "createdAt", "endpoint", "clientFormat", "method", "tokenId", "channelId", "model", "status", "promptTokens", "completionTokens", "latencyMs", "costUsd")
         VALUES (?, ?, '/v1/chat/completions', 'openai', 'POST', ?, 'builtin-mock', ?, 200, 10, 5, 3, 0.001)`,
      );
      database.transaction(() => {
        for (let index = 0; index < rows; index += 1) {
          const createdAt = new Date(started - 2 * 86_400_000 - index * 1000).toISOString().replace("Z", "+00:00");
          insert.run(`old_${index}`, createdAt, tokenId, index % 3 ? "mock-chat" : "other");
        }
      })();
    },
    exists: async (id) => exists.get(id) !== undefined,
    hourTotals: async () => database.prepare(`SELECT COUNT(*) AS "rows", SUM("requests") AS "requests" FROM "UsageHour"`).get(),
    close: async () => {
      // The file shrinks back to what the load wrote: the helper reads it whole when the gateway stops.
      database.exec("VACUUM");
      database.close();
    },
  };
}

async function postgresRows(url: string): Promise<Expired> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return {
    async insert(tokenId, started) {
      await client.query(
        `INSERT INTO "RequestLog" ("id", "createdAt", "endpoint", "clientFormat", "method", "tokenId", "channelId", "model", "status", "promptTokens", "completionTokens", "latencyMs", "costUsd")
         SELECT 'old_' || i, to_timestamp($1::double precision / 1000) AT TIME ZONE 'UTC' - interval '2 days' - i * interval '1 second',
                '/v1/chat/completions', 'openai', 'POST', $2, 'builtin-mock', CASE WHEN i % 3 = 0 THEN 'other' ELSE 'mock-chat' END, 200, 10, 5, 3, 0.001
           FROM generate_series(0, $3::int - 1) AS i`,
        [started, tokenId, rows],
      );
      await client.query(`VACUUM (ANALYZE) "RequestLog"`);
    },
    exists: async (id) => ((await client.query(`SELECT 1 FROM "RequestLog" WHERE "id" = $1`, [id])).rowCount ?? 0) > 0,
    hourTotals: async () => (await client.query(`SELECT COUNT(*) AS "rows", SUM("requests") AS "requests" FROM "UsageHour"`)).rows[0],
    close: () => client.end(),
  };
}

try {
  const token = (await gateway.admin("POST", "/api/admin/tokens", { name: "bench" })).body as { id: string; key: string };
  const started = Date.now();
  const expired = postgresUrl ? await postgresRows(postgresUrl) : sqliteRows(path.join(gateway.dataDir, "gateway.db"));
  await expired.insert(token.id, started);
  // The sweep deletes the oldest first: old_<rows-1> goes first, old_0 last.
  let left = rows;
  let looking = false;
  const watch = setInterval(() => {
    if (looking) return; // one look at a time (a pg client runs one query at a time)
    looking = true;
    void (async () => {
      left = (await expired.exists("old_0")) ? ((await expired.exists(`old_${rows - 1}`)) ? rows : 1) : 0;
    })().finally(() => (looking = false));
  }, 50);
  process.stdout.write(`inserted ${rows} expired rows (${postgresUrl ? "PostgreSQL" : "SQLite"}) in ${Date.now() - started} ms\n`);

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
    const line = `${label.padEnd(16)} ${String(result.requests.total).padStart(6)} requests in ${result.duration.toFixed(1)} s: ${result.requests.average.toFixed(0)} req/s, latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms; non-2xx ${result.non2xx}, errors ${result.errors}; log queue max ${maxDepth}`;
    process.stdout.write(`${line}\n`);
    return result;
  };

  // The first sweep starts within 4 s of start-up: wait for it to begin deleting.
  while (left === rows) await new Promise((resolve) => setTimeout(resolve, 20));
  const sweepStarted = Date.now();
  let sweepEnded = 0;
  // At most 500 rows per batch and 30 ms between batches: allow for that and then some.
  const longest = Math.max(120, Math.ceil(rows / 2000));
  await load(
    "during sweep",
    () => {
      if (left > 0) return false;
      sweepEnded ||= Date.now();
      return true;
    },
    longest,
  );
  sweepEnded ||= Date.now();
  process.stdout.write(
    `sweep deleted ${rows} rows in ${((sweepEnded - sweepStarted) / 1000).toFixed(1)} s (batches of 500, 30 ms apart)${left > 0 ? `; not finished within ${longest} s` : ""}\n`,
  );
  const during = sweepEnded - sweepStarted;
  const elapsed = Date.now();
  await load("no sweep", () => Date.now() - elapsed >= during, Math.ceil(during / 1000) + 1);
  clearInterval(watch);
  // The sweep deletes rows, never totals: the hourly rollups hold what the load added.
  process.stdout.write(`hourly rollups: ${JSON.stringify(await expired.hourTotals())}\n`);
  await expired.close();
} finally {
  await gateway.stop();
}
