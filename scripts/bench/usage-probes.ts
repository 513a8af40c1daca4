// What the usage-scale benchmark times: console pages in Chromium (warm: one load, then the
// median of several, until the page's content is shown), API calls, and chat latency.
import fs from "node:fs";
import path from "node:path";
import { type Browser, chromium } from "playwright-core";
import { request } from "undici";

export const median = (values: number[]) => (values.length ? [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]! : Number.NaN);
export const percentile = (values: number[], fraction: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * fraction))]!;

function findChromium(): string {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  for (const directory of (process.env.PATH ?? "").split(path.delimiter)) {
    for (const name of ["chromium", "chromium-browser"]) if (fs.existsSync(path.join(directory, name))) return path.join(directory, name);
  }
  throw new Error("Chromium not found: install the `chromium` package or set CHROMIUM_PATH.");
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: findChromium(),
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

export interface Timing {
  label: string;
  target: string;
  status: number | string;
  /** Median of the warm loads, ms. */
  ms: number;
  min: number;
  max: number;
  /** Pages: the median time from the request to the document's last byte (the server's part). */
  serverMs?: number;
  note?: string;
}

/** Each page once to warm it, then `loads` times; the time from navigation to the page's content shown. */
export async function timePages(browser: Browser, baseUrl: string, sessionCookie: string, pages: { label: string; path: string }[], loads: number): Promise<Timing[]> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const [name, ...value] = sessionCookie.split("=");
  await context.addCookies([{ name: name!, value: value.join("="), url: baseUrl }]);
  const page = await context.newPage();
  const results: Timing[] = [];
  for (const { label, path: route } of pages) {
    const times: number[] = [];
    const serverTimes: number[] = [];
    let status: number | string = 0;
    for (let load = 0; load <= loads; load += 1) {
      const started = performance.now();
      const response = await page.goto(`${baseUrl}${route}`, { waitUntil: "load", timeout: 120_000 });
      // Server-rendered without suspense: at `load` the whole page has arrived; shown once <main> is laid out.
      await page.locator("main").first().waitFor({ state: "visible", timeout: 120_000 });
      const elapsed = performance.now() - started;
      status = response?.status() ?? "no response";
      if (new URL(page.url()).pathname.startsWith("/login")) status = "signed out";
      const server = await page.evaluate(() => {
        const [entry] = performance.getEntriesByType("navigation") as PerformanceNavigationTiming[];
        return entry ? entry.responseEnd - entry.requestStart : Number.NaN;
      });
      if (load > 0) {
        times.push(elapsed);
        serverTimes.push(server);
      }
    }
    results.push({ label, target: route, status, ms: median(times), min: Math.min(...times), max: Math.max(...times) });
    process.stdout.write(
      `  page ${label.padEnd(34)} ${String(status).padEnd(4)} ${median(times).toFixed(0).padStart(6)} ms (min ${Math.min(...times).toFixed(0)}, max ${Math.max(...times).toFixed(0)})\n`,
    );
  }
  await context.close();
  return results;
}

/** An API call once to warm it, then `loads` times; the time to the whole body. */
export async function timeApis(baseUrl: string, headers: Record<string, string>, calls: { label: string; path: string }[], loads: number): Promise<Timing[]> {
  const results: Timing[] = [];
  for (const { label, path: route } of calls) {
    const times: number[] = [];
    let status = 0;
    let note = "";
    for (let load = 0; load <= loads; load += 1) {
      const started = performance.now();
      const response = await fetch(`${baseUrl}${route}`, { headers });
      const text = await response.text();
      const elapsed = performance.now() - started;
      status = response.status;
      if (load > 0) times.push(elapsed);
      if (load === 0) note = describeBody(text, response.headers.get("content-type") ?? "");
    }
    results.push({ label, target: route, status, ms: median(times), min: Math.min(...times), max: Math.max(...times), note });
    process.stdout.write(
      `  api  ${label.padEnd(34)} ${String(status).padEnd(4)} ${median(times).toFixed(0).padStart(6)} ms (min ${Math.min(...times).toFixed(0)}, max ${Math.max(...times).toFixed(0)}) ${note}\n`,
    );
  }
  return results;
}

function describeBody(text: string, type: string): string {
  if (!type.includes("json")) return `${text.split("\n").length - 1} lines`;
  try {
    const body = JSON.parse(text) as { data?: unknown[]; error?: { message?: string } };
    if (Array.isArray(body.data)) return `${body.data.length} rows`;
    return body.error?.message ? `error: ${body.error.message.slice(0, 80)}` : "";
  } catch {
    return "";
  }
}

export interface ChatTarget {
  label: string;
  url: string;
  key: string;
  model: string;
}

/**
 * Sequential chat completions (one connection each), the targets taking turns round by
 * round so a busy spell of the shared machine falls on all alike; latencies in ms.
 */
export async function chatLatencies(targets: ChatTarget[], rounds: number, perRound: number, during?: () => boolean): Promise<Map<string, number[]>> {
  const one = async (target: ChatTarget) => {
    const started = performance.now();
    const response = await request(`${target.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${target.key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: target.model, messages: [{ role: "user", content: "Say hello to the benchmark." }] }),
    });
    const text = await response.body.text();
    if (response.statusCode !== 200) throw new Error(`${target.label}: chat answered ${response.statusCode}: ${text.slice(0, 300)}`);
    return performance.now() - started;
  };
  for (const target of targets) for (let warm = 0; warm < 50; warm += 1) await one(target);
  const samples = new Map(targets.map((target) => [target.label, [] as number[]]));
  for (let round = 0; round < rounds; round += 1) {
    for (const target of targets) {
      for (let index = 0; index < perRound; index += 1) {
        if (during && !during()) return samples;
        samples.get(target.label)!.push(await one(target));
      }
    }
  }
  return samples;
}

export function latencySummary(values: number[]): { n: number; p50: number; p99: number; mean: number } {
  return { n: values.length, p50: percentile(values, 0.5), p99: percentile(values, 0.99), mean: values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length) };
}
