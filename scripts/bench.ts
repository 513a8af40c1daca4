// `npm run bench`: non-streaming chat throughput and latency through the gateway, and
// directly against the same loopback upstream in the same run, with the ratio.
// Not a test: it prints numbers. Options: BENCH_SECONDS (8), BENCH_CONNECTIONS (32).
import autocannon from "autocannon";
import { startFakeOpenAIUpstream, UPSTREAM_API_KEY } from "../tests/helpers/fake-openai-upstream";
import { startGateway } from "../tests/helpers/start-gateway";

const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const body = JSON.stringify({ model: "bench-model", messages: [{ role: "user", content: "Say hello to the benchmark." }] });

type Result = { rps: number; p50: number; p99: number; non2xx: number; errors: number };

async function load(url: string, authorization: string): Promise<Result> {
  const run = (duration: number) =>
    autocannon({
      url,
      method: "POST",
      connections,
      duration,
      headers: { authorization, "content-type": "application/json" },
      body,
    });
  await run(2); // warm-up: JIT, connection pools, tokenizer
  const result = await run(seconds);
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

const upstream = await startFakeOpenAIUpstream();
const gateway = await startGateway({ LOG_LEVEL: "warn" });
try {
  const channel = await gateway.admin("POST", "/api/admin/channels", {
    name: "bench", type: "openai", baseUrl: upstream.baseUrl, apiKey: UPSTREAM_API_KEY, models: ["bench-model"],
  });
  if (channel.status !== 201) throw new Error(`channel: ${JSON.stringify(channel.body)}`);
  const token = await gateway.admin("POST", "/api/admin/tokens", { name: "bench" });
  upstream.received.length = 0;

  // The fake records requests for tests; keep memory flat during the run.
  const trim = setInterval(() => (upstream.received.length = 0), 500);
  const direct = await load(`${upstream.baseUrl}/chat/completions`, `Bearer ${UPSTREAM_API_KEY}`);
  const through = await load(`${gateway.url}/v1/chat/completions`, `Bearer ${token.body.key}`);
  clearInterval(trim);

  const logs = await gateway.admin("GET", "/api/admin/logs?limit=1");
  const row = (name: string, result: Result) =>
    `${name.padEnd(22)} ${result.rps.toFixed(0).padStart(8)} ${String(result.p50).padStart(8)} ${String(result.p99).padStart(8)} ${String(result.non2xx + result.errors).padStart(8)}`;
  console.log(`\nnon-streaming chat, ${connections} connections, ${seconds}s each, Node ${process.version}`);
  console.log(`${"target".padEnd(22)} ${"req/s".padStart(8)} ${"p50 ms".padStart(8)} ${"p99 ms".padStart(8)} ${"failed".padStart(8)}`);
  console.log(row("upstream directly", direct));
  console.log(row("through the gateway", through));
  console.log(`\nthroughput ratio (gateway / direct): ${(through.rps / direct.rps).toFixed(2)}`);
  console.log(`added p50 latency: ${(through.p50 - direct.p50).toFixed(1)} ms`);
  console.log(`request log written: ${logs.body.data.length === 1 ? "yes" : "no"}`);
} finally {
  await gateway.stop();
  await upstream.close();
}
