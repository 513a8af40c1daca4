// The bench's measuring tools, shared by scripts/bench.ts and its workloads: processes
// started and read from /proc, loads run with autocannon in interleaved rounds (each
// figure the median of its rounds), requests at a fixed rate.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { request } from "undici";

export const seconds = Number(process.env.BENCH_SECONDS ?? 5);
export const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
export const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
export const rate = Number(process.env.BENCH_RATE ?? 100);
export const ROOT = path.resolve(import.meta.dirname, "../..");
export const cores = os.availableParallelism();
export const pin = (core: number) => (cores > 1 ? ["taskset", "-c", String(core)] : []);
if (cores > 1) spawnSync("taskset", ["-cp", "1", String(process.pid)], { stdio: "ignore" });

const children: ChildProcess[] = [];
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});

/** Starts a process and resolves with the first stdout line matching `ready`. */
export function startProcess(command: string[], env: Record<string, string>, ready: RegExp, cwd = ROOT): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  const child = spawn(command[0]!, command.slice(1), { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let output = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${command.join(" ")} did not start:\n${output}`)), 600_000);
    const check = (data: Buffer) => {
      output += data;
      const match = ready.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ child, match });
      }
    };
    child.stdout!.on("data", check);
    child.stderr!.on("data", (data) => (output += data));
    child.once("exit", (code) => reject(new Error(`${command.join(" ")} exited with ${code}:\n${output}`)));
  });
}

export function cpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks
}

export function memoryMb(pid: number): { rss: number; peak: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: Math.round(kb("VmRSS") / 1024), peak: Math.round(kb("VmHWM") / 1024) };
}

export interface Target {
  name: string;
  url: string;
  headers: Record<string, string>;
  pid?: number;
}
export type Load = {
  rps: number;
  p50: number;
  p99: number;
  failed: number;
  cpuUsPerRequest: number | null;
  /** How far the target's RSS rose above where it started, at its highest during the run (when sampled). */
  rssRiseMb?: number;
};

export interface Run {
  target: Target;
  path: string;
  body: string;
  headers?: Record<string, string>;
  /** Connections for this run (BENCH_CONNECTIONS by default). */
  connections?: number;
  /** Sample the target's RSS every 20 ms during the run. */
  sampleRss?: boolean;
}

export async function measure(run: Run, duration: number): Promise<Load> {
  const { target } = run;
  const cpuBefore = target.pid ? cpuSeconds(target.pid) : 0;
  const rssBefore = target.pid && run.sampleRss ? memoryMb(target.pid).rss : 0;
  let rssHighest = rssBefore;
  const sampler = target.pid && run.sampleRss ? setInterval(() => (rssHighest = Math.max(rssHighest, memoryMb(target.pid!).rss)), 20) : undefined;
  const result = await autocannon({
    url: `${target.url}${run.path}`,
    method: "POST",
    connections: run.connections ?? connections,
    duration,
    headers: { ...target.headers, ...run.headers, "content-type": "application/json" },
    body: run.body,
  });
  clearInterval(sampler);
  const cpu = target.pid ? cpuSeconds(target.pid) - cpuBefore : 0;
  const served = result.requests.total;
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failed: result.non2xx + result.errors,
    cpuUsPerRequest: target.pid && served > 0 ? Math.round((cpu * 1e6) / served) : null,
    ...(run.sampleRss ? { rssRiseMb: rssHighest - rssBefore } : {}),
  };
}

export const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Each run warmed up (JIT, pools, caches), then all of them in turn, `rounds` times; the medians. */
export async function interleaved(runs: Run[]): Promise<Load[]> {
  for (const run of runs) await measure(run, 2);
  const samples: Load[][] = runs.map(() => []);
  for (let round = 0; round < rounds; round += 1) {
    for (const [index, run] of runs.entries()) samples[index]!.push(await measure(run, seconds));
  }
  return samples.map((loads) => ({
    rps: median(loads.map((load) => load.rps)),
    p50: median(loads.map((load) => load.p50)),
    p99: median(loads.map((load) => load.p99)),
    failed: loads.reduce((sum, load) => sum + load.failed, 0),
    cpuUsPerRequest: loads[0]!.cpuUsPerRequest === null ? null : median(loads.map((load) => load.cpuUsPerRequest!)),
    ...(loads[0]!.rssRiseMb === undefined ? {} : { rssRiseMb: median(loads.map((load) => load.rssRiseMb!)) }),
  }));
}

/** Requests at a fixed rate well below saturation: latency to the whole answer and to the first body byte. */
export async function atFixedRate(
  target: Target,
  path: string,
  body: string,
): Promise<{ p50: number; p99: number; firstByteP50: number; firstByteP99: number; cpuUsPerRequest: number | null }> {
  const total = rate * 4;
  const latencies: number[] = [];
  const firstBytes: number[] = [];
  const one = async () => {
    const started = performance.now();
    const response = await request(`${target.url}${path}`, { method: "POST", headers: { ...target.headers, "content-type": "application/json" }, body });
    let first: number | undefined;
    for await (const _chunk of response.body) first ??= performance.now();
    const ended = performance.now();
    firstBytes.push((first ?? ended) - started);
    latencies.push(ended - started);
  };
  for (let warm = 0; warm < 50; warm += 1) await one();
  latencies.length = 0;
  firstBytes.length = 0;
  const cpuBefore = target.pid ? cpuSeconds(target.pid) : 0;
  const pending: Promise<void>[] = [];
  for (let index = 0; index < total; index += 1) {
    pending.push(one());
    await new Promise((resolve) => setTimeout(resolve, 1000 / rate));
  }
  await Promise.all(pending);
  // Whatever runs per request regardless of load (timer wake-ups, batches of one) shows here.
  const cpuUsPerRequest = target.pid ? Math.round(((cpuSeconds(target.pid) - cpuBefore) * 1e6) / total) : null;
  const percentile = (values: number[], p: number) => values.sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!;
  return {
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    firstByteP50: percentile(firstBytes, 0.5),
    firstByteP99: percentile(firstBytes, 0.99),
    cpuUsPerRequest,
  };
}
