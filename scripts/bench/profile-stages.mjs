// Splits a gateway CPU profile (node --cpu-prof) into the stages of one request, by where
// each sample's own time was spent: `node scripts/bench/profile-stages.mjs <file.cpuprofile>`.
// Idle samples are left out; shares are of the busy main thread. A function lands in the
// first stage whose pattern matches its name or file; anything else is "other".
import fs from "node:fs";

const STAGES = [
  [
    "accept + parse the client's request",
    /node:_http_(server|incoming|common)|parseJsonObject|readJsonBody|readWholeNodeBody|toApiRequest|parse-request|parseChatCompletion|zod|validation/,
  ],
  ["auth (token cache)", /authenticate|token-cache|tokenFrom|bearer|lru-cache|sameSecret|hashToken/],
  ["limits and quotas", /SpendLimiter|reserve|consumeRequest|rate-limiter|Window/],
  ["JSON.parse (client body, relayed answer)", /^parse $/],
  [
    "routing and attempts",
    /attemptAll|callContextFor|runCall|pickChannels|orderTiers|channelTiers|weightedOrder|candidates|callWithFallbacks|SessionAffinity|requestSession|KeyPool|tryAcquire|ChannelStates/,
  ],
  ["body rewrite", /relayedBody|rewriteJsonObject|withJsonChanges|topLevelMembers|valueEnd|stringEnd/],
  ["upstream call (undici)", /undici|sendUpstream|postJson|UpstreamHttp|MappedBody|joinUrl|authorize|wasm|llhttp/],
  ["answer to the client", /writeApiResponse|node:_http_outgoing|writev|writeGeneric|stream_base|node:net|node:internal\/streams|parseUpstreamJson|meterAnswer|bytes/],
  ["log row and settlement", /newLogId|RequestLog|request-log|buildEntry|enqueue|postMessage|logRowValues|sqliteDate|countTokens|settle/],
  ["metrics, access log, tracing", /prom-client|GatewayMetrics|drain|logRequest|pino|tracer|startSpan|endSpan|opentelemetry/],
  [
    "promises, timers, events",
    /runMicrotasks|processTicksAndRejections|nextTick|node:events|AbortController|AbortSignal|abort_controller|event_target|timers|setTimeout|listOnTimeout/,
  ],
  ["garbage collection", /garbage collector/],
  [
    "start-up (module loading, not per request)",
    /node:internal\/modules|node:internal\/deps\/cjs-module-lexer|node:internal\/bootstrap|readFileUtf8|compileSourceTextModule|wrapSafe/,
  ],
];

const profile = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const counts = new Map();
for (const sample of profile.samples) counts.set(sample, (counts.get(sample) ?? 0) + 1);

const totals = new Map(STAGES.map(([name]) => [name, 0]));
const others = new Map();
let busy = 0;
for (const [id, count] of counts) {
  const { functionName, url } = nodes.get(id).callFrame;
  if (functionName === "(idle)" || functionName === "(program)") continue;
  busy += count;
  const label = `${functionName} ${url}`;
  const stage = STAGES.find(([, pattern]) => pattern.test(label));
  if (stage) totals.set(stage[0], totals.get(stage[0]) + count);
  else others.set(label, (others.get(label) ?? 0) + count);
}
const share = (count) => `${((100 * count) / busy).toFixed(1).padStart(5)}%`;
console.log(`busy samples: ${busy}`);
for (const [name, count] of [...totals].sort((a, b) => b[1] - a[1])) console.log(`${share(count)}  ${name}`);
const other = [...others.values()].reduce((sum, count) => sum + count, 0);
console.log(`${share(other)}  other; the largest:`);
for (const [label, count] of [...others].sort((a, b) => b[1] - a[1]).slice(0, 8)) console.log(`         ${share(count)} ${label.replace(/.*node_modules\//, "")}`);
