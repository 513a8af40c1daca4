import assert from "node:assert/strict";
import type { RequestLogEntry } from "@/lib/usage/request-log-entry";
import type { RequestLogStore, UsageGroup } from "@/lib/usage/request-log-store";
import { totalsOf } from "@/lib/usage/request-log-writer";

// What both request log stores must do with the hourly rollups: equal the raw rows' sums after
// a soak of mixed requests written concurrently, count a failed batch nowhere, keep every
// total through the retention sweep, and roll up rows from before the rollups exactly once.

/** The raw rows as the database holds them, read back through SQL. */
export type RawRows = () => Promise<RawRow[]>;
export interface RawRow {
  createdAt: Date;
  tokenId: string | null;
  userId: string | null;
  model: string | null;
  servedModel: string | null;
  channelId: string | null;
  status: number;
  errorMessage: string | null;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  costUsd: number;
  cacheStatus: string | null;
  latencyMs: number;
  endUser: string | null;
}

const HOUR = 3_600_000;
const START = Date.parse("2026-10-01T00:00:00Z");

/** A deterministic stream of varied rows: streamed, failed, cut short, cached, fallbacks, console sessions, refusals. */
export function mixedEntries(count: number, prefix: string, seed = 1): RequestLogEntry[] {
  let state = seed;
  const next = (range: number) => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return Math.floor((state / 2_147_483_648) * range);
  };
  return Array.from({ length: count }, (_, index) => {
    const kind = next(20);
    const refused = kind === 0;
    const failed = kind === 1 || kind === 2;
    const hit = kind === 3;
    const fallback = kind === 4;
    const console = kind === 5;
    const token = console ? null : `tok_${next(6)}`;
    return {
      id: `req_${prefix}_${index.toString().padStart(6, "0")}`,
      createdAt: new Date(START + next(72) * HOUR + next(HOUR)),
      endpoint: "/v1/chat/completions",
      clientFormat: "openai",
      method: "POST",
      tokenId: token,
      userId: console ? `user_${next(2)}` : `user_${token!.slice(-1) === "0" ? 0 : 1}`,
      channelId: refused || hit ? null : `ch_${next(3)}`,
      model: `model-${next(4)}`,
      upstreamModel: null,
      servedModel: fallback ? "model-fallback" : null,
      status: refused ? 404 : failed ? (kind === 1 ? 429 : 502) : 200,
      stream: next(2) === 0,
      promptTokens: refused ? 0 : next(5000),
      completionTokens: refused || failed ? 0 : next(800),
      cachedTokens: next(3) === 0 ? next(1000) : 0,
      reasoningTokens: next(100),
      usageEstimated: false,
      latencyMs: next(30_000),
      firstTokenMs: next(2) === 0 ? next(5000) : null,
      costUsd: refused ? 0 : next(10_000) / 1_000_000,
      // A stream cut short: a 200 with an error.
      errorMessage: failed ? "upstream failed" : kind === 6 ? "stream ended early" : null,
      warnings: null,
      attempts: null,
      sessionHash: null,
      cacheStatus: hit ? "hit" : kind === 7 ? "miss" : null,
      cacheSavedUsd: hit ? 0.001 : 0,
      // Two requests in three name one of seven end users.
      endUser: index % 3 === 0 ? null : `end-user-${index % 7}`,
    };
  });
}

export const batchOf = (rows: RequestLogEntry[]) => ({ rows, ...totalsOf(rows) });

type Key = string;
interface Sums {
  requests: number;
  errors: number;
  failed: number;
  charged: number;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  costUsd: number;
  cacheHits: number;
  latencyMsSum: number;
}

/**
 * The raw rows summed per (hour, token, user, model, channel), independently of the rollup
 * code; `byEndUser`: only rows naming an end user, each apart.
 */
export function sumRaw(rows: RawRow[], by: "hour" | "day" = "hour", byEndUser = false): Map<Key, Sums> {
  const sums = new Map<Key, Sums>();
  for (const row of rows) {
    if (byEndUser && row.endUser === null) continue;
    const hour = by === "hour" ? new Date(Math.floor(row.createdAt.getTime() / HOUR) * HOUR).toISOString() : row.createdAt.toISOString().slice(0, 10);
    const key = [hour, row.tokenId, row.userId, row.servedModel ?? row.model, row.channelId, ...(byEndUser ? [row.endUser] : [])].join("|");
    const sum = sums.get(key) ?? {
      requests: 0,
      errors: 0,
      failed: 0,
      charged: 0,
      promptTokens: 0,
      completionTokens: 0,
      cachedTokens: 0,
      costUsd: 0,
      cacheHits: 0,
      latencyMsSum: 0,
    };
    sum.requests += 1;
    if (row.status >= 400) sum.errors += 1;
    if (row.status >= 400 || row.errorMessage !== null) sum.failed += 1;
    if (row.channelId !== null || row.cacheStatus === "hit") sum.charged += 1;
    sum.promptTokens += row.promptTokens;
    sum.completionTokens += row.completionTokens;
    sum.cachedTokens += row.cachedTokens;
    sum.costUsd += row.costUsd;
    if (row.cacheStatus === "hit") sum.cacheHits += 1;
    sum.latencyMsSum += row.latencyMs;
    sums.set(key, sum);
  }
  return sums;
}

export function sumGroups(groups: UsageGroup[]): Map<Key, Sums> {
  const sums = new Map<Key, Sums>();
  for (const group of groups) {
    const key = [group.hour ?? group.day, group.token, group.user, group.model, group.channel, ...("end_user" in group ? [group.end_user] : [])].join("|");
    const { requests, errors, failed, charged, promptTokens, completionTokens, cachedTokens, costUsd, cacheHits, latencyMsSum } = group;
    sums.set(key, { requests, errors, failed, charged, promptTokens, completionTokens, cachedTokens, costUsd, cacheHits, latencyMsSum });
  }
  return sums;
}

const EVERYTHING = { from: new Date(0), groupBy: ["hour", "token", "user", "model", "channel"] } as const;
const BY_END_USER = { from: new Date(0), groupBy: ["hour", "token", "user", "model", "channel", "end_user"] } as const;

/** Compares with float sums rounded: two orders of additions differ in the last bits. */
export function assertSameSums(actual: Map<Key, Sums>, expected: Map<Key, Sums>, message: string): void {
  const round = (map: Map<Key, Sums>) =>
    Object.fromEntries([...map].sort(([a], [b]) => (a < b ? -1 : 1)).map(([key, sums]) => [key, { ...sums, costUsd: Math.round(sums.costUsd * 1e9) / 1e9 }]));
  assert.deepEqual(round(actual), round(expected), message);
}

/** The rollups from `from` on equal the rows' sums (rows before it may have been swept). */
export async function assertRollupsMatchRows(store: RequestLogStore, rawRows: RawRows, message: string, from = new Date(0)): Promise<void> {
  const rows = (await rawRows()).filter((row) => row.createdAt >= from);
  assertSameSums(sumGroups(await store.usage({ ...EVERYTHING, from })), sumRaw(rows), message);
  assertSameSums(sumGroups(await store.usage({ ...BY_END_USER, from })), sumRaw(rows, "hour", true), `${message}: per end user`);
}

/** The whole contract on one empty, migrated database; `second` is another store on the same database. */
export async function rollupContract(parts: {
  store: RequestLogStore;
  second: RequestLogStore;
  rawRows: RawRows;
  /** Inserts rows straight into the table (as a gateway before the rollups did) and sets the backfill's mark. */
  insertOldRows(rows: RequestLogEntry[]): Promise<void>;
}): Promise<void> {
  const { store, second, rawRows } = parts;
  // A soak: batches of every size, two writers at once on overlapping hours and keys.
  const entries = mixedEntries(3000, "soak");
  const writes: Promise<void>[] = [];
  for (let start = 0, size = 1; start < entries.length; start += size, size = (size * 7) % 500 || 1) {
    const slice = entries.slice(start, start + size);
    writes.push((writes.length % 2 ? second : store).writeBatch(batchOf(slice)));
  }
  await Promise.all(writes);
  await assertRollupsMatchRows(store, rawRows, "after a soak of concurrent batches");
  // Whole days are read from the daily rollups, the hours around them from the hourly ones.
  assertSameSums(
    sumGroups(await store.usage({ from: new Date("2026-10-01T00:00:00Z"), to: new Date("2026-10-04T00:00:00Z"), groupBy: ["day", "token", "user", "model", "channel"] })),
    sumRaw(await rawRows(), "day"),
    "the daily rollups are the sums of the hours",
  );
  assertSameSums(
    sumGroups(
      await store.usage({ from: new Date("2026-10-01T00:00:00Z"), to: new Date("2026-10-04T00:00:00Z"), groupBy: ["day", "token", "user", "model", "channel", "end_user"] }),
    ),
    sumRaw(await rawRows(), "day", true),
    "the end users' daily rollups are the sums of their hours",
  );
  // One end user, by filter, from hours, days and hours again.
  const sinceMorning = new Date("2026-10-01T07:00:00Z");
  const [one] = await store.usage({ from: sinceMorning, groupBy: [], endUser: "end-user-3", tokenIds: ["tok_2"] });
  const endUserRows = (await rawRows()).filter((row) => row.createdAt >= sinceMorning && row.endUser === "end-user-3" && row.tokenId === "tok_2");
  assert.ok(endUserRows.length > 10);
  assert.deepEqual([one?.requests, one?.promptTokens], [endUserRows.length, endUserRows.reduce((sum, row) => sum + row.promptTokens, 0)]);
  const sinceMidDay = await store.usage({ from: new Date("2026-10-01T13:00:00Z"), groupBy: [] });
  assert.equal(sinceMidDay[0]!.requests, (await rawRows()).filter((row) => row.createdAt >= new Date("2026-10-01T13:00:00Z")).length, "hours, then days, then hours again");
  const day = await store.usage({ from: new Date("2026-10-02T00:00:00Z"), to: new Date("2026-10-03T00:00:00Z"), groupBy: ["day"] });
  const inDay = (await rawRows()).filter((row) => row.createdAt.toISOString().startsWith("2026-10-02"));
  assert.deepEqual(
    day.map((group) => [group.day, group.requests, group.errors]),
    [["2026-10-02", inDay.length, inDay.filter((row) => row.status >= 400).length]],
  );
  const before = await store.usage(EVERYTHING);

  // A batch that fails midway counts nowhere; the same batch written twice counts once.
  const broken = mixedEntries(50, "broken", 7);
  broken[30] = { ...broken[30]!, endpoint: null as unknown as string };
  await assert.rejects(store.writeBatch(batchOf(broken)));
  assertSameSums(sumGroups(await store.usage(EVERYTHING)), sumGroups(before), "a failed batch added nothing");
  const again = mixedEntries(40, "again", 9);
  await store.writeBatch(batchOf(again));
  await store.writeBatch(batchOf(again)).catch(() => undefined);
  await assertRollupsMatchRows(store, rawRows, "a batch written again is counted once");

  // Retention deletes rows, never totals.
  const totals = await store.usage({ from: new Date(0), groupBy: ["token"] });
  const endUserTotals = await store.usage({ from: new Date(0), groupBy: ["token", "end_user"] });
  let deleted = 0;
  for (let rows = -1; rows !== 0; ) {
    rows = await store.sweepBefore(new Date("2026-10-03T00:00:00Z"), 500);
    deleted += rows;
  }
  assert.ok(deleted > 1000, `the sweep deleted ${deleted} rows`);
  assert.equal((await rawRows()).filter((row) => row.createdAt < new Date("2026-10-03T00:00:00Z")).length, 0);
  assertSameSums(sumGroups(await store.usage({ from: new Date(0), groupBy: ["token"] })), sumGroups(totals), "every total outlives its rows");
  assertSameSums(sumGroups(await store.usage({ from: new Date(0), groupBy: ["token", "end_user"] })), sumGroups(endUserTotals), "every end user's total too");
  const spent = await store.usageSince({ kind: "token", id: "tok_1" }, new Date(0));
  const tok1 = totals.find((row) => row.token === "tok_1")!;
  // Sums of floats in another order differ in the last bits.
  assert.deepEqual({ ...spent, usd: spent.usd.toFixed(9) }, { tokens: tok1.promptTokens + tok1.completionTokens, usd: tok1.costUsd.toFixed(9), requests: tok1.charged });

  // Rows from before the rollups: rolled up once by the backfill, in batches, resumable;
  // the sweep deletes nothing while any wait. (They name no end user: the column came later.)
  const old = mixedEntries(1200, "old", 11).map((entry) => ({ ...entry, endUser: null, createdAt: new Date(entry.createdAt.getTime() + 40 * 24 * HOUR) }));
  const keptBefore = await store.usage({ from: new Date(0), groupBy: ["token"] });
  await parts.insertOldRows(old);
  assert.equal(await store.sweepBefore(new Date("2027-01-01T00:00:00Z"), 500), 0, "no row is deleted before the backfill is done");
  // Both stores at once, as two processes starting together: each batch is taken once.
  const backfill = async (by: RequestLogStore) => {
    let full = 0;
    while (await by.backfillHours(250)) full += 1;
    return full;
  };
  const [mine, theirs] = await Promise.all([backfill(store), backfill(second)]);
  assert.equal(mine + theirs, 4, "1200 rows in batches of 250: four full batches between them, then the last");
  assert.equal(await store.backfillHours(250), false);
  await assertRollupsMatchRows(store, rawRows, "after the backfill", new Date("2026-10-03T00:00:00Z"));
  const oldTotals = sumRaw(old.map((entry) => ({ ...entry, servedModel: entry.servedModel ?? null }) as RawRow));
  assert.equal(
    [...oldTotals.values()].reduce((sum, row) => sum + row.requests, 0) + keptBefore.reduce((sum, row) => sum + row.requests, 0),
    (await store.usage({ from: new Date(0), groupBy: [] }))[0]!.requests,
  );
}
