// Many long streams open at once (against scripts/bench/slow-upstream.ts): what each open
// stream costs a target process in memory, what the whole run costs it in CPU (both read
// from /proc/<pid>), and whether every stream arrived whole. countLogRows checks that the
// gateway wrote a log row for each of them.
import fs from "node:fs";
import { createParser } from "eventsource-parser";
import { Pool, request } from "undici";
import { z } from "zod";

export interface LongStreamsTarget {
  /** Origin (and any path prefix) the path is appended to. */
  url: string;
  headers: Record<string, string>;
  /** The process measured: its RSS while the streams are open, its CPU over the run. */
  pid: number;
  path: string;
}

export interface LongStreamsOptions {
  target: LongStreamsTarget;
  streams: number;
  body: string;
  /** `data:` events a whole stream carries, `data: [DONE]` not counted. */
  expectedEvents: number;
  sampleEveryMs?: number;
}

export interface LongStreamsResult {
  streams: number;
  /** Streams that carried every expected event and ended with [DONE]. */
  completed: number;
  /** Streams answered with a status other than 200, or cut by a transport error. */
  failed: number;
  /** Expected events that did not arrive, summed over the streams that were answered 200. */
  lostEvents: number;
  rssBeforeMb: number;
  rssPeakDuringMb: number;
  /** (peak during - before) / streams. */
  rssPerStreamKb: number;
  cpuSeconds: number;
  durationSeconds: number;
  /** The slowest wait for a stream's first event: seconds here mean streams queued behind a connection limit. */
  firstEventMaxMs: number;
  /** What the first failure said: a transport error's message or a status and body. */
  firstFailure?: string;
}

function cpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks
}

function rssKb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
}

type StreamOutcome = { status: number; events: number; done: boolean; error: string | undefined; firstEventMs: number | undefined };

async function readStream(pool: Pool, path: string, headers: Record<string, string>, body: string): Promise<StreamOutcome> {
  const started = performance.now();
  const outcome: StreamOutcome = { status: 0, events: 0, done: false, error: undefined, firstEventMs: undefined };
  const parser = createParser({
    onEvent: (event) => {
      outcome.firstEventMs ??= performance.now() - started;
      if (event.data === "[DONE]") outcome.done = true;
      else outcome.events += 1;
    },
  });
  try {
    const response = await pool.request({ path, method: "POST", headers: { ...headers, "content-type": "application/json" }, body });
    outcome.status = response.statusCode;
    if (response.statusCode !== 200) {
      outcome.error = `${response.statusCode}: ${(await response.body.text()).slice(0, 200)}`;
      return outcome;
    }
    const decoder = new TextDecoder();
    for await (const bytes of response.body) parser.feed(decoder.decode(bytes as Buffer, { stream: true }));
    parser.feed(decoder.decode());
  } catch (error) {
    outcome.error = error instanceof Error ? error.message : String(error);
  }
  return outcome;
}

/**
 * Opens `streams` streaming POSTs at once, reads each to its end, and samples the target meanwhile.
 * Warm the target first: a cold process's first requests (JIT, modules loaded on first use) would count as per-stream memory.
 */
export async function measureLongStreams(options: LongStreamsOptions): Promise<LongStreamsResult> {
  const { target, streams, body, expectedEvents, sampleEveryMs = 250 } = options;
  const url = new URL(`${target.url}${target.path}`);
  // One connection per stream, and no timeout between events shorter than a long stream's pauses.
  const pool = new Pool(url.origin, { connections: streams, pipelining: 1, bodyTimeout: 0, headersTimeout: 0 });
  const rssBefore = rssKb(target.pid);
  const cpuBefore = cpuSeconds(target.pid);
  let rssPeak = rssBefore;
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, rssKb(target.pid));
  }, sampleEveryMs);
  const started = performance.now();
  const outcomes = await Promise.all(Array.from({ length: streams }, () => readStream(pool, `${url.pathname}${url.search}`, target.headers, body)));
  const durationSeconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  rssPeak = Math.max(rssPeak, rssKb(target.pid));
  const cpu = cpuSeconds(target.pid) - cpuBefore;
  await pool.close();

  const answered = outcomes.filter((outcome) => outcome.status === 200);
  const failure = outcomes.find((outcome) => outcome.error !== undefined)?.error;
  const mb = (kb: number) => Math.round(kb / 102.4) / 10;
  return {
    streams,
    completed: answered.filter((outcome) => outcome.error === undefined && outcome.done && outcome.events === expectedEvents).length,
    failed: outcomes.filter((outcome) => outcome.error !== undefined).length,
    lostEvents: answered.reduce((sum, outcome) => sum + Math.max(0, expectedEvents - outcome.events), 0),
    rssBeforeMb: mb(rssBefore),
    rssPeakDuringMb: mb(rssPeak),
    rssPerStreamKb: Math.round(((rssPeak - rssBefore) / streams) * 10) / 10,
    cpuSeconds: Math.round(cpu * 100) / 100,
    durationSeconds: Math.round(durationSeconds * 10) / 10,
    firstEventMaxMs: Math.round(outcomes.reduce((slowest, outcome) => Math.max(slowest, outcome.firstEventMs ?? 0), 0)),
    ...(failure ? { firstFailure: failure } : {}),
  };
}

const logPage = z.object({ data: z.array(z.unknown()), next_cursor: z.string().nullable() });

/** Rows of GET /api/admin/logs for `model` from `sinceIso` on, every page counted. */
export async function countLogRows(gatewayUrl: string, adminKey: string, model: string, sinceIso: string): Promise<number> {
  let rows = 0;
  let cursor: string | null = null;
  do {
    const search = new URLSearchParams({ model, from: sinceIso, limit: "500", ...(cursor ? { cursor } : {}) });
    const response = await request(`${gatewayUrl}/api/admin/logs?${search}`, { headers: { authorization: `Bearer ${adminKey}` } });
    if (response.statusCode !== 200) throw new Error(`GET /api/admin/logs answered ${response.statusCode}: ${await response.body.text()}`);
    const page = logPage.parse(await response.body.json());
    rows += page.data.length;
    cursor = page.next_cursor;
  } while (cursor);
  return rows;
}
