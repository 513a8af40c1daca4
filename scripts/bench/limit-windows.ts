// What limit windows cost a request: one gateway (as the tests start it; REDIS_URL and
// DATABASE_URL from the environment when set), chat requests through a token without
// limits, one with the classic quota, and one with three windows, in turn for a few rounds.
// Run: `npx tsx scripts/bench/limit-windows.ts` (BENCH_SECONDS, BENCH_ROUNDS, BENCH_CONNECTIONS).
import autocannon from "autocannon";
import { startGateway } from "../../tests/helpers/start-gateway";

const seconds = Number(process.env.BENCH_SECONDS ?? 4);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const extra: Record<string, string> = process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {};
if (process.env.DATABASE_URL) extra.DATABASE_URL = process.env.DATABASE_URL;

const gateway = await startGateway(extra, { processes: 1 });
try {
  const big = 1_000_000_000;
  const tokens = {
    "no limits": {},
    "quota + budget": { quotaTokens: big, budgetUsd: big, quotaPeriod: "monthly" },
    "three windows": {
      limits: [
        { window: "5h", requests: big },
        { window: "week", tokens: big },
        { window: "month", usd: big, models: ["mock-chat"] },
      ],
    },
  };
  const keys = new Map<string, string>();
  for (const [label, fields] of Object.entries(tokens)) keys.set(label, (await gateway.admin("POST", "/api/admin/tokens", { name: label, ...fields })).body.key);
  const results = new Map<string, number[]>();
  for (let round = 0; round <= rounds; round += 1) {
    for (const [label, key] of keys) {
      const result = await autocannon({
        url: `${gateway.url}/v1/chat/completions`,
        connections,
        duration: round === 0 ? 1 : seconds, // round 0 warms up
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "mock-chat", messages: [{ role: "user", content: "hi" }], max_tokens: 5 }),
      });
      if (result.non2xx > 0) throw new Error(`${label}: ${result.non2xx} non-2xx answers`);
      if (round > 0) results.set(label, [...(results.get(label) ?? []), result.requests.average]);
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const base = median(results.get("no limits")!);
  for (const [label, values] of results) {
    process.stdout.write(
      `${label.padEnd(16)} median ${median(values).toFixed(0)} req/s (rounds: ${values.map((value) => value.toFixed(0)).join(", ")}), ${(median(values) / base).toFixed(2)} of no limits\n`,
    );
  }
} finally {
  await gateway.stop();
}
