// `npm run bench:usage -- --rows 3000000`: a month of an organisation's traffic (N log rows
// over 30 days: 40 tokens of 5 users, 12 models on 6 channels, 2% errors, cache hits,
// streams, agent sessions) written through the store's own writeBatch, then the gateway
// (production build) on it: each console page timed warm in Chromium, the log and usage
// APIs, chat latency against an empty gateway in alternating rounds, the gateway's memory,
// and, with --backfill, the one-time rollup of rows that predate the rollups.
// Options: --rows N (200000), --database sqlite|postgres, --postgres-url URL (else a
// throwaway cluster), --dir DIR (/tmp/usage-scale-<database>-<rows>), --keep (reuse a filled
// database), --fill-only, --backfill-only, --loads N (5 warm loads per page), --backfill, --chat-rounds, --chat-requests.
// Numbers only: no pass or fail. Writes scripts/.tmp/usage-scale-<database>-<rows>.json.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { signIn } from "../../tests/helpers/console-sign-in";
import { CHAT_MODEL, CHAT_TOKEN, type Cast, createCast, createChatPair, fillLog, type Location, markPresent, unrollCopy, USER_LIMITS, USER_PASSWORD } from "./usage-fill";
import { chatLatencies, type ChatTarget, latencySummary, launchChromium, type Timing, timeApis, timePages } from "./usage-probes";
import { ADMIN, ROOT, type RunningGateway, startGateway, startPostgres, startUpstream } from "./usage-services";
import { MODELS } from "./usage-traffic";

const { values: options } = parseArgs({
  options: {
    rows: { type: "string", default: "200000" },
    database: { type: "string", default: "sqlite" },
    "postgres-url": { type: "string" },
    dir: { type: "string" },
    keep: { type: "boolean", default: false },
    loads: { type: "string", default: "5" },
    backfill: { type: "boolean", default: false },
    "fill-only": { type: "boolean", default: false },
    "backfill-only": { type: "boolean", default: false },
    "chat-rounds": { type: "string", default: "6" },
    "chat-requests": { type: "string", default: "300" },
  },
});
const rows = Number(options.rows);
const kind = options.database === "postgres" || options.database === "postgresql" ? "postgresql" : "sqlite";
const dir = path.resolve(options.dir ?? path.join(os.tmpdir(), `usage-scale-${kind}-${rows}`));
const loads = Number(options.loads);
const statePath = path.join(dir, "state.json");

interface State {
  rows: number;
  kind: string;
  cast: Cast;
  fill: { seconds: number; rate: number; bytes: number };
  backfillCopy: boolean;
}

const cluster = kind === "postgresql" && !options["postgres-url"] ? await startPostgres(path.join(dir, "pg")) : undefined;
process.on("exit", () => cluster?.stop());
const postgresUrl = (database: string) => {
  if (cluster) return cluster.url(database);
  const url = new URL(options["postgres-url"]!);
  url.pathname = `/${database}`;
  return url.toString();
};
async function resetPostgresDatabase(name: string, template?: string): Promise<void> {
  const client = new pg.Client({ connectionString: postgresUrl("postgres") });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await client.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ""}`);
  await client.end();
}
async function postgresBytes(name: string): Promise<number> {
  const client = new pg.Client({ connectionString: postgresUrl("postgres") });
  await client.connect();
  const {
    rows: [row],
  } = await client.query(`SELECT pg_database_size($1) AS bytes`, [name]);
  await client.end();
  return Number(row.bytes);
}
/** Where a gateway's data lives: DATA_DIR, and for PostgreSQL the database named after it. */
const locationOf = (name: string): Location => (kind === "sqlite" ? { kind, file: path.join(dir, name, "gateway.db") } : { kind, url: postgresUrl(`bench_${name}`) });
const envOf = (name: string): Record<string, string> => (kind === "sqlite" ? {} : { DATABASE_URL: postgresUrl(`bench_${name}`) });

const upstream = await startUpstream();
const started: RunningGateway[] = [];
const start = async (name: string, env: Record<string, string> = {}) => {
  const gateway = await startGateway(path.join(dir, name), { ...envOf(name), ...env });
  started.push(gateway);
  return gateway;
};
const results: Record<string, unknown> = { rows, database: kind, node: process.version, cores: os.availableParallelism(), memoryGb: Math.round(os.totalmem() / 2 ** 30) };

try {
  // 1. The filled database, or the one a previous --keep run left.
  let state: State | undefined = options.keep && fs.existsSync(statePath) ? JSON.parse(fs.readFileSync(statePath, "utf8")) : undefined;
  if (state && (state.rows !== rows || state.kind !== kind)) state = undefined;
  if (!state) {
    for (const name of ["full", "empty", "backfill"]) fs.rmSync(path.join(dir, name), { recursive: true, force: true });
    if (kind === "postgresql") await resetPostgresDatabase("bench_full");
    process.stdout.write(`Filling ${dir} with ${rows.toLocaleString("en")} rows (${kind})\n`);
    const setup = await start("full");
    const cast = await createCast(setup, upstream.url);
    await setup.stop();
    const fill = await fillLog(locationOf("full"), cast, rows, kind === "sqlite" ? 5000 : 10_000);
    if (kind === "postgresql") {
      // What autovacuum does to an insert-only table within minutes: statistics and the visibility map.
      const client = new pg.Client({ connectionString: postgresUrl("bench_full") });
      await client.connect();
      const vacuumStarted = performance.now();
      await client.query(`VACUUM (ANALYZE) "RequestLog"`);
      await client.query(`VACUUM (ANALYZE) "UsageHour"`);
      process.stdout.write(`  VACUUM ANALYZE ${((performance.now() - vacuumStarted) / 1000).toFixed(0)} s\n`);
      await client.end();
    }
    const bytes = kind === "sqlite" ? fs.statSync(path.join(dir, "full", "gateway.db")).size : await postgresBytes("bench_full");
    state = { rows, kind, cast, fill: { ...fill, bytes }, backfillCopy: false };
    fs.writeFileSync(statePath, JSON.stringify(state, null, 2));
  }
  results.fill = state.fill;
  process.stdout.write(`Fill: ${state.fill.rate.toLocaleString("en")} rows/s (${state.fill.seconds.toFixed(0)} s), ${(state.fill.bytes / 2 ** 30).toFixed(2)} GiB\n`);
  const cast = state.cast;
  if (options["fill-only"]) process.stdout.write("Filled (--fill-only): run again with --keep to measure.\n");
  else {
    if (!options["backfill-only"]) await measure(cast);
    if (options.backfill || options["backfill-only"]) await measureBackfill(cast);
    const saved = path.join(ROOT, "scripts", ".tmp", `usage-scale-${kind}-${rows}.json`);
    fs.mkdirSync(path.dirname(saved), { recursive: true });
    fs.writeFileSync(saved, JSON.stringify(results, null, 2));
    process.stdout.write(`Not present: ${(results.notPresent as string[] | undefined)?.join("; ") || "none"}\nResults: ${saved}\n`);
  }
} finally {
  for (const gateway of started) await gateway.stop().catch(() => undefined);
  upstream.stop();
  cluster?.stop();
  if (!options.keep) fs.rmSync(dir, { recursive: true, force: true });
}

async function measure(cast: Cast): Promise<void> {
  // 2. The filled gateway and an empty one beside it (the chat baseline).
  const full = await start("full");
  for (const id of cast.channelIds) await full.admin("PATCH", `/api/admin/channels/${id}`, { baseUrl: upstream.url });
  for (const id of cast.userIds) await full.admin("PATCH", `/api/admin/users/${id}`, USER_LIMITS);
  fs.rmSync(path.join(dir, "empty"), { recursive: true, force: true });
  if (kind === "postgresql") await resetPostgresDatabase("bench_empty");
  const empty = await start("empty");
  const emptyKey = await createChatPair(empty, upstream.url);
  await new Promise((resolve) => setTimeout(resolve, 5000));
  const memory: Record<string, unknown> = { startedFull: full.memory(), startedEmpty: empty.memory() };

  const adminCookie = await signIn(full.url, ADMIN.email, ADMIN.password);
  const userCookie = await signIn(full.url, cast.userEmails[0]!, USER_PASSWORD);
  if (!adminCookie || !userCookie) throw new Error("could not sign in to the console");
  const html = async (route: string) => (await fetch(`${full.url}${route}`, { headers: { cookie: adminCookie } })).text();
  const adminHeaders = { authorization: `Bearer ${full.adminKey}` };
  const busyModel = MODELS[3]!.name;
  const busyToken = cast.tokenIds[CHAT_TOKEN]!;
  const to = new Date();
  const from = new Date(to.getTime() - 30 * 86_400_000);
  const span = `from=${from.toISOString()}&to=${to.toISOString()}`;

  // What exists in this checkout: the range picker, the Logs page's cursor.
  const dashboard = await html("/console");
  const picker = /range=/.test(dashboard);
  const nextLink = (page: string) => /href="([^"]*cursor=[^"]*)"/.exec(page)?.[1]?.replaceAll("&amp;", "&");
  let deepLogs = nextLink(await html("/console/logs"));
  for (let page = 1; deepLogs && page < 20; page += 1) deepLogs = nextLink(await html(deepLogs)) ?? deepLogs;
  const firstApi = (await (await fetch(`${full.url}/api/admin/logs?limit=50`, { headers: adminHeaders })).json()) as { data?: { id: string }[]; next_cursor?: string | null };
  let deepCursor = firstApi.next_cursor ?? undefined;
  for (let page = 1; deepCursor && page < 20; page += 1) {
    const next = (await (await fetch(`${full.url}/api/admin/logs?limit=100&cursor=${encodeURIComponent(deepCursor)}`, { headers: adminHeaders })).json()) as {
      next_cursor?: string | null;
    };
    deepCursor = next.next_cursor ?? deepCursor;
  }
  const someLog = firstApi.data?.[0]?.id;
  const notPresent: string[] = [];

  // 3. Console pages, warm, in Chromium. The machine's load is kept beside the numbers: on a shared machine it explains them.
  const load: Record<string, number[]> = { beforePages: os.loadavg() };
  const browser = await launchChromium();
  const pages = [
    { label: "Dashboard", path: "/console" },
    ...(picker
      ? [
          { label: "Dashboard, 7 d", path: "/console?range=7d" },
          { label: "Dashboard, 30 d", path: "/console?range=30d" },
          { label: "Dashboard, 90 d", path: "/console?range=90d" },
        ]
      : []),
    { label: "Tokens", path: "/console/tokens" },
    { label: "Channels", path: "/console/channels" },
    { label: "Users", path: "/console/users" },
    { label: "Models", path: "/console/models" },
    { label: "Logs", path: "/console/logs" },
    { label: "Logs, by model", path: `/console/logs?model=${busyModel}` },
    { label: "Logs, by token", path: `/console/logs?token=${busyToken}` },
    { label: "Logs, 4xx", path: "/console/logs?status=4xx" },
    ...(deepLogs ? [{ label: "Logs, 20 pages deep (cursor)", path: deepLogs }] : []),
    ...(someLog ? [{ label: "Log detail", path: `/console/logs/${someLog}` }] : []),
  ];
  if (!picker) notPresent.push("Dashboard range picker (no range= link on /console)");
  if (!deepLogs) notPresent.push("Logs page cursor (no cursor= link on /console/logs)");
  const pageTimings = await timePages(browser, full.url, adminCookie, pages, loads);
  // The same pages on the empty gateway: what a page costs whatever the table holds (rendering, the browser).
  process.stdout.write("The same pages, empty gateway\n");
  const emptyCookie = await signIn(empty.url, ADMIN.email, ADMIN.password);
  const emptyPages = await timePages(
    browser,
    empty.url,
    emptyCookie!,
    pages.filter((page) => !page.path.includes("?") && !page.label.includes("detail")),
    loads,
  );
  await browser.close();
  memory.afterPagesFull = full.memory();
  load.afterPages = os.loadavg();

  // 4. The APIs.
  const day = new Date(to.getTime() - 10 * 86_400_000);
  const apiTimings: Timing[] = await timeApis(
    full.url,
    adminHeaders,
    [
      { label: "logs, first page", path: "/api/admin/logs?limit=50" },
      { label: "logs, by model", path: `/api/admin/logs?limit=50&model=${busyModel}` },
      { label: "logs, by token", path: `/api/admin/logs?limit=50&token=${busyToken}` },
      { label: "logs, by channel", path: `/api/admin/logs?limit=50&channel=${cast.channelIds[2]}` },
      { label: "logs, 4xx", path: "/api/admin/logs?limit=50&status=4xx" },
      { label: "logs, one day 10 days ago", path: `/api/admin/logs?limit=50&from=${day.toISOString()}&to=${new Date(day.getTime() + 86_400_000).toISOString()}` },
      ...(firstApi.next_cursor ? [{ label: "logs, next page (cursor)", path: `/api/admin/logs?limit=50&cursor=${encodeURIComponent(firstApi.next_cursor)}` }] : []),
      ...(deepCursor && deepCursor !== firstApi.next_cursor
        ? [{ label: "logs, 2,000 rows deep (cursor)", path: `/api/admin/logs?limit=50&cursor=${encodeURIComponent(deepCursor)}` }]
        : []),
      { label: "usage by day, 30 d", path: `/api/admin/usage?${span}&group_by=day` },
      { label: "usage by hour, 30 d", path: `/api/admin/usage?${span}&group_by=hour` },
      { label: "usage by model, 30 d", path: `/api/admin/usage?${span}&group_by=model` },
      { label: "usage by token, 30 d", path: `/api/admin/usage?${span}&group_by=token` },
      { label: "usage by user, 30 d", path: `/api/admin/usage?${span}&group_by=user` },
      { label: "usage by channel, 30 d", path: `/api/admin/usage?${span}&group_by=channel` },
      { label: "usage by day,model,token, 30 d", path: `/api/admin/usage?${span}&group_by=day,model,token` },
      { label: "usage by day, 30 d, CSV", path: `/api/admin/usage?${span}&group_by=day&format=csv` },
    ],
    loads,
  );
  apiTimings.push(
    ...(await timeApis(
      full.url,
      { cookie: userCookie },
      [
        { label: "own usage by day, 30 d (user)", path: `/api/usage?${span}&group_by=day` },
        { label: "own usage by model, 30 d (user)", path: `/api/usage?${span}&group_by=model` },
      ],
      loads,
    )),
  );
  if (!firstApi.next_cursor) notPresent.push("/api/admin/logs cursor (no next_cursor)");
  for (const timing of apiTimings) if (timing.status === 404) notPresent.push(timing.target);

  // 5. Chat latency, empty and full, in alternating rounds.
  process.stdout.write("Chat latency (sequential, one connection, rounds alternating)\n");
  const chatTargets: ChatTarget[] = [
    { label: "empty", url: empty.url, key: emptyKey, model: CHAT_MODEL },
    { label: "full", url: full.url, key: cast.tokenKeys[CHAT_TOKEN]!, model: CHAT_MODEL },
  ];
  const chat = await chatLatencies(chatTargets, Number(options["chat-rounds"]), Number(options["chat-requests"]));
  const chatSummary = Object.fromEntries([...chat].map(([label, values]) => [label, latencySummary(values)]));
  for (const [label, summary] of Object.entries(chatSummary))
    process.stdout.write(`  ${label.padEnd(6)} n ${summary.n}, p50 ${summary.p50.toFixed(2)} ms, p99 ${summary.p99.toFixed(2)} ms, mean ${summary.mean.toFixed(2)} ms\n`);
  load.afterChat = os.loadavg();
  memory.afterChatFull = full.memory();
  memory.afterChatEmpty = empty.memory();
  process.stdout.write(`Memory (MB): ${JSON.stringify(memory)}\n`);
  await full.stop();
  await empty.stop();
  Object.assign(results, { load, pages: pageTimings, emptyPages, apis: apiTimings, chat: chatSummary, memory, notPresent });
}

/** 6. The rollups' backfill on a copy of the log without them, with chat requests going on. */
async function measureBackfill(cast: Cast): Promise<void> {
  process.stdout.write("Backfill: a copy without rollups, with the migration's mark\n");
  fs.rmSync(path.join(dir, "backfill"), { recursive: true, force: true });
  fs.cpSync(path.join(dir, "full"), path.join(dir, "backfill"), { recursive: true });
  if (kind === "postgresql") await resetPostgresDatabase("bench_backfill", "bench_full");
  const location = locationOf("backfill");
  await unrollCopy(location);
  const startedAt = performance.now();
  const gateway = await start("backfill");
  const ready = performance.now();
  for (const id of cast.channelIds) await gateway.admin("PATCH", `/api/admin/channels/${id}`, { baseUrl: upstream.url });
  for (const id of cast.userIds) await gateway.admin("PATCH", `/api/admin/users/${id}`, USER_LIMITS);
  let pending = true;
  const poll = setInterval(() => void markPresent(location).then((present) => (pending = present)), 500);
  const during = await chatLatencies(
    [{ label: "during", url: gateway.url, key: cast.tokenKeys[CHAT_TOKEN]!, model: CHAT_MODEL }],
    1000,
    100,
    () => pending && performance.now() - ready < 1_800_000,
  );
  while (pending && performance.now() - ready < 1_800_000) await new Promise((resolve) => setTimeout(resolve, 250));
  clearInterval(poll);
  const complaints = gateway
    .output()
    .split("\n")
    .filter((line) => /"level":(40|50|60)/.test(line));
  if (complaints.length > 0) process.stdout.write(`  the gateway logged:\n${complaints.join("\n").slice(0, 3000)}\n`);
  const doneAt = performance.now();
  const duringSamples = during.get("during")!;
  const after = await chatLatencies([{ label: "after", url: gateway.url, key: cast.tokenKeys[CHAT_TOKEN]!, model: CHAT_MODEL }], 1, Math.max(300, duringSamples.length));
  const backfill = {
    startupSeconds: (ready - startedAt) / 1000,
    seconds: (doneAt - ready) / 1000,
    rowsPerSecond: Math.round(rows / ((doneAt - ready) / 1000)),
    chatDuring: latencySummary(duringSamples),
    chatAfter: latencySummary(after.get("after")!),
    memory: gateway.memory(),
  };
  process.stdout.write(`  ${JSON.stringify(backfill)}\n`);
  results.backfill = backfill;
  await gateway.stop();
  fs.rmSync(path.join(dir, "backfill"), { recursive: true, force: true });
  if (kind === "postgresql") {
    const client = new pg.Client({ connectionString: postgresUrl("postgres") });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS bench_backfill WITH (FORCE)`);
    await client.end();
  }
}
