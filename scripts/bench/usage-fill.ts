// Fills a gateway's database for the usage-scale benchmark: the cast (users, tokens,
// channels) through the admin API, then a month of log rows through the store's own
// writeBatch (rows, hourly rollups and token usage in one transaction, as the log writer
// writes them), in big batches.
import Database from "better-sqlite3";
import pg from "pg";
import { PostgresRequestLogStore } from "../../lib/db/postgres-request-log-store";
import { SqliteRequestLogStore } from "../../lib/db/sqlite-request-log-store";
import { BACKFILL_MARK } from "../../lib/db/usage-hour-sql";
import type { RequestLogStore } from "../../lib/usage/request-log-store";
import { totalsOf } from "../../lib/usage/request-log-writer";
import type { RunningGateway } from "./usage-services";
import { type CastIds, CHANNEL_COUNT, channelsOfModel, MODELS, TOKEN_COUNT, trafficBatches, USER_COUNT } from "./usage-traffic";

export const USER_PASSWORD = "bench-user-password";
/** The token the chat latency is measured with: the busiest one, with a monthly quota, a budget and a 5-hour window. */
export const CHAT_TOKEN = 0;
export const CHAT_MODEL = MODELS[0]!.name;
/** An engineer running agents: no per-minute or daily cap, a monthly budget (read from the rollups per period). */
export const USER_LIMITS = { rpm: null, quotaTokens: null, budgetUsd: 1_000_000, quotaPeriod: "monthly" };
const CHAT_LIMITS = { quotaTokens: 1_000_000_000_000, budgetUsd: 1_000_000, quotaPeriod: "monthly", limits: [{ window: "5h", requests: 1_000_000_000 }] };

export interface Cast extends CastIds {
  tokenKeys: string[];
  userEmails: string[];
}

async function created<T>(answer: Promise<{ status: number; body: any }>, what: string): Promise<T> {
  const { status, body } = await answer;
  if (status !== 201 && status !== 200) throw new Error(`creating ${what}: ${status} ${JSON.stringify(body)}`);
  return body as T;
}

/** Users, channels and tokens, made through the admin API so the console shows them. */
export async function createCast(gateway: RunningGateway, upstreamUrl: string): Promise<Cast> {
  const users = await created<{ data: { id: string; email: string }[] }>(gateway.admin("GET", "/api/admin/users"), "the user list");
  const adminId = users.data.find((user) => user.email.startsWith("admin@"))!.id;
  const userIds: string[] = [];
  const userEmails: string[] = [];
  for (let index = 0; index < USER_COUNT; index += 1) {
    const email = `engineer${index + 1}@bench.example`;
    const user = await created<{ id: string }>(gateway.admin("POST", "/api/admin/users", { email, password: USER_PASSWORD, name: `Engineer ${index + 1}` }), email);
    await created(gateway.admin("PATCH", `/api/admin/users/${user.id}`, USER_LIMITS), `${email}'s limits`);
    userIds.push(user.id);
    userEmails.push(email);
  }
  const channelIds: string[] = [];
  const channelNames: string[] = [];
  for (let index = 0; index < CHANNEL_COUNT; index += 1) {
    const models = MODELS.filter((_, model) => channelsOfModel(model).includes(index)).map((model) => model.name);
    const name = `upstream-${index + 1}`;
    const channel = await created<{ id: string }>(
      gateway.admin("POST", "/api/admin/channels", { name, type: "openai", baseUrl: upstreamUrl, apiKey: `sk-bench-upstream-${index}`, models }),
      name,
    );
    channelIds.push(channel.id);
    channelNames.push(name);
  }
  const tokenIds: string[] = [];
  const tokenKeys: string[] = [];
  for (let index = 0; index < TOKEN_COUNT; index += 1) {
    // Every fourth token has a monthly quota and budget, as teams give their agents.
    const limits = index === CHAT_TOKEN ? CHAT_LIMITS : index % 4 === 0 ? { quotaTokens: 5_000_000_000, budgetUsd: 20_000, quotaPeriod: "monthly" } : {};
    const token = await created<{ id: string; key: string }>(
      gateway.admin("POST", "/api/admin/tokens", { name: `agent-${index + 1}`, userId: userIds[index % USER_COUNT], ...limits }),
      `token ${index}`,
    );
    tokenIds.push(token.id);
    tokenKeys.push(token.key);
  }
  return { adminId, userIds, userEmails, tokenIds, tokenKeys, channelIds, channelNames };
}

/** A channel and a token like the chat token, on an empty gateway: the baseline. */
export async function createChatPair(gateway: RunningGateway, upstreamUrl: string): Promise<string> {
  await created(
    gateway.admin("POST", "/api/admin/channels", { name: "upstream-1", type: "openai", baseUrl: upstreamUrl, apiKey: "sk-bench-upstream-0", models: [CHAT_MODEL] }),
    "channel",
  );
  return (await created<{ key: string }>(gateway.admin("POST", "/api/admin/tokens", { name: "agent-1", ...CHAT_LIMITS }), "token")).key;
}

export type Location = { kind: "sqlite"; file: string } | { kind: "postgresql"; url: string };

export async function openStore(location: Location): Promise<RequestLogStore> {
  return location.kind === "sqlite" ? new SqliteRequestLogStore(location.file) : PostgresRequestLogStore.open(location.url);
}

/** Writes `rows` rows through the store, two batches in flight; rows per second. */
export async function fillLog(location: Location, cast: CastIds, rows: number, batchSize: number): Promise<{ seconds: number; rate: number }> {
  const store = await openStore(location);
  const started = performance.now();
  const inFlight = new Set<Promise<void>>();
  let written = 0;
  let reported = 0;
  for (const batch of trafficBatches(cast, rows, new Date(), batchSize)) {
    if (inFlight.size >= 2) await Promise.race(inFlight);
    const write = store.writeBatch({ rows: batch, ...totalsOf(batch) }).then(() => {
      inFlight.delete(write);
      written += batch.length;
      if (written - reported >= rows / 20) {
        reported = written;
        const seconds = (performance.now() - started) / 1000;
        process.stdout.write(`  ${written.toLocaleString("en")} rows, ${seconds.toFixed(0)} s, ${Math.round(written / seconds).toLocaleString("en")} rows/s\n`);
      }
    });
    inFlight.add(write);
  }
  await Promise.all(inFlight);
  const seconds = (performance.now() - started) / 1000;
  await store.close();
  return { seconds, rate: Math.round(rows / seconds) };
}

/**
 * Turns a filled copy into a database from before the rollups: no hourly or daily totals, and the
 * migration's backfill mark set as the migration sets it.
 */
export async function unrollCopy(location: Location): Promise<void> {
  if (location.kind === "sqlite") {
    const database = new Database(location.file);
    database.exec(`DELETE FROM "UsageHour"; DELETE FROM "UsageDay"`);
    database
      .prepare(
        `INSERT INTO "Setting" ("key", "value", "updatedAt") VALUES (?, json_object('through', (SELECT MAX(rowid) FROM "RequestLog"), 'after', 0), strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`,
      )
      .run(BACKFILL_MARK);
    database.close();
    return;
  }
  const client = new pg.Client({ connectionString: location.url });
  await client.connect();
  await client.query(`TRUNCATE "UsageHour", "UsageDay"`);
  await client.query(
    `INSERT INTO "Setting" ("key", "value", "updatedAt") VALUES ($1, json_build_object('before', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'after', NULL)::text, now())`,
    [BACKFILL_MARK],
  );
  await client.end();
}

/** Whether the backfill's mark is still there (rows left to roll up). */
export async function markPresent(location: Location): Promise<boolean> {
  if (location.kind === "sqlite") {
    const database = new Database(location.file, { readonly: true, timeout: 30_000 });
    try {
      return database.prepare(`SELECT 1 FROM "Setting" WHERE "key" = ?`).get(BACKFILL_MARK) !== undefined;
    } finally {
      database.close();
    }
  }
  const client = new pg.Client({ connectionString: location.url });
  await client.connect();
  try {
    return (await client.query(`SELECT 1 FROM "Setting" WHERE "key" = $1`, [BACKFILL_MARK])).rowCount === 1;
  } finally {
    await client.end();
  }
}
