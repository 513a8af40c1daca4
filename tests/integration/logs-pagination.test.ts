import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { type Database, createDatabase } from "@/lib/db/client";
import type { DatabaseLocation } from "@/lib/db/database-url";
import { migrate } from "@/lib/db/migrate";
import { countLogs, decodeCursor, encodeCursor, type LogFilter, type LogSource, parseLogQuery, queryLogPage, visibleTo } from "@/lib/console/log-query";
import { logsCsv } from "@/lib/console/logs-csv";
import { createTestDatabase, sharedServices } from "../helpers/start-gateway";

// The Logs page's queries on a real store: SQLite, or PostgreSQL in the many-instance pass.
// Rows are written straight into the table so times (and ties) are exact.

interface Row {
  id: string;
  createdAt: Date;
  tokenId: string;
  userId: string;
  model: string;
  channelId: string;
  status: number;
  sessionHash: string | null;
}

const BASE = Date.parse("2025-03-01T00:00:00Z");
const STATUSES = [200, 200, 200, 201, 400, 404, 429, 500, 502, 200];
let database: Database;
let source: LogSource;
let directory: string | undefined;
const rows: Row[] = [];
let sequence = 0;

function makeRow(at: number, overrides: Partial<Row> = {}): Row {
  const index = sequence++;
  return {
    id: `req_test_${String(index).padStart(6, "0")}`,
    createdAt: new Date(at),
    tokenId: `tok_${index % 4}`,
    userId: `user_${index % 2}`,
    model: ["m-one", "m-two", "m-three"][index % 3]!,
    channelId: `chan_${index % 5}`,
    status: STATUSES[index % STATUSES.length]!,
    sessionHash: index % 2 === 0 ? `session_${index % 6}` : null,
    ...overrides,
  };
}

async function insert(batch: Row[]) {
  await database.requestLog.createMany({
    data: batch.map((row) => ({
      ...row,
      endpoint: "/v1/chat/completions",
      clientFormat: "openai",
      method: "POST",
      latencyMs: 5,
      stream: true,
      attempts: [{ status: row.status }],
    })),
  });
  rows.push(...batch);
}

/** Newest first, ties by id: the order the pages promise. */
const newestFirst = (list: Row[]) => [...list].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));

function matches(row: Row, filter: LogFilter): boolean {
  const classes = { "2xx": [200, 300], "4xx": [400, 500], "5xx": [500, 600] } as const;
  return (
    (!filter.token || row.tokenId === filter.token) &&
    (!filter.user || row.userId === filter.user) &&
    (!filter.model || row.model === filter.model) &&
    (!filter.channel || row.channelId === filter.channel) &&
    (!filter.session || row.sessionHash === filter.session) &&
    (!filter.status || (row.status >= classes[filter.status][0] && row.status < classes[filter.status][1])) &&
    (!filter.from || row.createdAt >= filter.from) &&
    (!filter.to || row.createdAt < filter.to)
  );
}

/** Every page of `filter`, following next cursors. */
async function allPages(filter: LogFilter, limit: number, between?: () => Promise<void>): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 1000; pages += 1) {
    const page = await queryLogPage(source, filter, cursor ? decodeCursor(cursor) : undefined, limit);
    assert.ok(page.rows.length <= limit);
    ids.push(...page.rows.map((row) => row.id));
    cursor = page.older;
    if (!cursor) return ids;
    await between?.();
  }
  throw new Error("pagination did not end");
}

before(async () => {
  const services = sharedServices();
  let location: DatabaseLocation;
  if (services) {
    location = { kind: "postgresql", url: await createTestDatabase(services.postgresUrl) };
  } else {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), "gateway-logs-"));
    location = { kind: "sqlite", file: path.join(directory, "logs.db") };
  }
  await migrate(location);
  database = await createDatabase(location);
  source = { database, databaseKind: location.kind, logs: { flush: async () => {} } } as unknown as LogSource;
  // 150 rows a second apart, then 30 sharing one millisecond: ties are broken by id.
  await insert(Array.from({ length: 150 }, (_, index) => makeRow(BASE + index * 1000)));
  await insert(Array.from({ length: 30 }, () => makeRow(BASE + 75_500)));
});

after(async () => {
  await database?.$disconnect();
  if (directory) fs.rmSync(directory, { recursive: true, force: true });
});

describe("Logs keyset pagination", () => {
  test("pages return every row exactly once, newest first, while newer rows arrive", async () => {
    const before = newestFirst(rows).map((row) => row.id);
    let later = BASE + 10_000_000;
    const arrived: string[] = [];
    const seen = await allPages({}, 7, async () => {
      // New rows land before the cursor's position: they shift no row onto the next page.
      const fresh = [makeRow((later += 1000)), makeRow(later)];
      arrived.push(...fresh.map((row) => row.id));
      await insert(fresh);
    });
    assert.deepEqual(seen, before);
    assert.ok(arrived.length > 40);
    // The newest page shows them.
    const first = await queryLogPage(source, {}, undefined, 5);
    assert.deepEqual(
      first.rows.map((row) => row.id),
      newestFirst(rows)
        .slice(0, 5)
        .map((row) => row.id),
    );
    assert.equal(first.newer, null);
    // A page's rows are what findMany gives: dates, booleans and JSON typed alike.
    const stored = await database.requestLog.findUnique({ where: { id: first.rows[0]!.id } });
    assert.deepEqual({ ...first.rows[0] }, { ...stored });
    assert.ok(first.rows[0]!.createdAt instanceof Date);
  });

  const filters: [string, LogFilter][] = [
    ["token", { token: "tok_1" }],
    ["user", { user: "user_0" }],
    ["model", { model: "m-two" }],
    ["channel", { channel: "chan_3" }],
    ["session", { session: "session_4" }],
    ["2xx", { status: "2xx" }],
    ["4xx", { status: "4xx" }],
    ["5xx", { status: "5xx" }],
    ["from and to (to exclusive)", { from: new Date(BASE + 20_000), to: new Date(BASE + 75_500) }],
    ["token and model", { token: "tok_2", model: "m-one" }],
    ["user and 5xx", { user: "user_1", status: "5xx" }],
    ["model, channel and 2xx", { model: "m-three", channel: "chan_1", status: "2xx" }],
    ["session and 4xx", { session: "session_0", status: "4xx" }],
    ["token, 4xx and a window", { token: "tok_0", status: "4xx", from: new Date(BASE + 10_000), to: new Date(BASE + 120_000) }],
    ["a token of another user", { user: "user_0", token: "tok_1" }],
  ];
  for (const [name, filter] of filters) {
    test(`filter: ${name}`, async () => {
      const expected = newestFirst(rows.filter((row) => matches(row, filter))).map((row) => row.id);
      assert.deepEqual(await allPages(filter, 4), expected);
      assert.deepEqual(await countLogs(source, filter, 1000), { count: expected.length, more: false });
    });
  }

  test("a filter that matches nothing answers an empty last page", async () => {
    assert.deepEqual(await queryLogPage(source, { model: "no-such-model", status: "5xx" }, undefined, 10), { rows: [], older: null, newer: null });
  });

  test("the total stops counting past its cap", async () => {
    assert.deepEqual(await countLogs(source, {}, 20), { count: 20, more: true });
    assert.deepEqual(await countLogs(source, { status: "5xx" }, 5), { count: 5, more: true });
    const fives = rows.filter((row) => row.status >= 500).length;
    assert.deepEqual(await countLogs(source, { status: "5xx" }, fives), { count: fives, more: false });
  });

  test("a cursor round-trips, and Newer leads back to the page before", async () => {
    const filter: LogFilter = { model: "m-one" };
    const first = await queryLogPage(source, filter, undefined, 6);
    const second = await queryLogPage(source, filter, decodeCursor(first.older!), 6);
    const third = await queryLogPage(source, filter, decodeCursor(second.older!), 6);
    const back = await queryLogPage(source, filter, decodeCursor(third.newer!), 6);
    assert.deepEqual(
      back.rows.map((row) => row.id),
      second.rows.map((row) => row.id),
    );
    assert.equal(back.older, second.older);
    // From the second page, Newer is the newest page again.
    const top = await queryLogPage(source, filter, decodeCursor(second.newer!), 6);
    assert.deepEqual(
      top.rows.map((row) => row.id),
      first.rows.map((row) => row.id),
    );
    assert.equal(top.newer, null);

    const place = { createdAt: new Date(BASE + 1234), id: "req_x" };
    assert.deepEqual(decodeCursor(encodeCursor(place)), { ...place, direction: "older" });
    assert.deepEqual(decodeCursor(encodeCursor(place, "newer")), { ...place, direction: "newer" });
    for (const bad of ["", "not a cursor", Buffer.from("{}").toString("base64url"), Buffer.from('{"t":"yesterday","i":"a"}').toString("base64url")]) {
      assert.equal(decodeCursor(bad), undefined, bad);
    }
  });

  test("someone not an admin sees only their own rows, whatever the filter asks", async () => {
    const user = { role: "user" as const, userId: "user_1" };
    const own = newestFirst(rows.filter((row) => row.userId === "user_1")).map((row) => row.id);
    assert.deepEqual(await allPages(visibleTo(user, {}), 9), own);
    assert.deepEqual(await allPages(visibleTo(user, { user: "user_0" }), 9), own);
    // tok_0 is user_0's: nothing of it shows.
    assert.deepEqual(await allPages(visibleTo(user, { token: "tok_0" }), 9), []);
    assert.deepEqual(await countLogs(source, visibleTo(user, { token: "tok_0" })), { count: 0, more: false });
    assert.deepEqual(
      await allPages(visibleTo({ role: "admin", userId: "user_1" }, { token: "tok_0" }), 50),
      newestFirst(rows.filter((row) => row.tokenId === "tok_0")).map((row) => row.id),
    );
  });

  test("the page's URL parameters", () => {
    const parsed = parseLogQuery(new URLSearchParams("from=2025-03-01T10:00&to=2025-03-02&token=t&user=u&model=m&channel=c&status=5xx&session=s&endpoint=ignored"), true);
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.query.filter, {
      from: new Date("2025-03-01T10:00:00Z"),
      to: new Date("2025-03-02T00:00:00Z"),
      token: "t",
      user: "u",
      model: "m",
      channel: "c",
      status: "5xx",
      session: "s",
    });
    // The page drops what it cannot read; the API names it.
    const bad = new URLSearchParams("status=3xx&model=m");
    assert.deepEqual(parseLogQuery(bad, true), { ok: true, query: { filter: { model: "m" } } });
    assert.deepEqual(parseLogQuery(bad), { ok: false, param: "status", message: "status must be one of 2xx, 4xx, 5xx." });
  });

  test("the CSV export streams every visible row, a batch at a time", async () => {
    await insert(Array.from({ length: 2300 }, (_, index) => makeRow(BASE - 1_000_000 + index)));
    const stream = await logsCsv(source, { role: "admin", userId: "user_0" }, {});
    const reader = stream.getReader();
    const decoder = new TextDecoder();
    const header = decoder.decode((await reader.read()).value);
    assert.match(header, /^time,id,endpoint,/);
    // The first read is one batch, not the whole table.
    const firstBatch = decoder
      .decode((await reader.read()).value)
      .split("\r\n")
      .filter(Boolean);
    assert.equal(firstBatch.length, 1000);
    let text = firstBatch.join("\r\n");
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += `\r\n${decoder.decode(chunk.value)}`;
    const ids = text
      .split("\r\n")
      .filter(Boolean)
      .map((line) => line.split(",")[1]);
    assert.deepEqual(
      ids,
      newestFirst(rows).map((row) => row.id),
    );

    const ownCsv = await new Response(await logsCsv(source, { role: "user", userId: "user_1" }, { status: "4xx" })).text();
    const ownIds = ownCsv
      .split("\r\n")
      .slice(1)
      .filter(Boolean)
      .map((line) => line.split(",")[1]);
    assert.deepEqual(
      ownIds,
      newestFirst(rows.filter((row) => row.userId === "user_1" && row.status >= 400 && row.status < 500)).map((row) => row.id),
    );
  });
});
