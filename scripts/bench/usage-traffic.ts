// A month of an organisation's traffic for the usage-scale benchmark: who calls (users and
// their tokens), what they call (models, each served by one or two channels) and when
// (weekdays and office hours busier), as RequestLogEntry rows in time order, the way the
// log writer receives them. Deterministic for a given row count (a seeded generator).
import { newLogId } from "../../lib/usage/log-id";
import type { AttemptRecord, RequestLogEntry } from "../../lib/usage/request-log-entry";

export const DAYS = 30;
const HOUR_MS = 3_600_000;

/** Public model names; price in USD per million tokens; medians of a call. */
export const MODELS = [
  { name: "gpt-4.1", input: 2, output: 8, latencyMs: 2400, prompt: 3000, completion: 400 },
  { name: "gpt-4.1-mini", input: 0.4, output: 1.6, latencyMs: 1200, prompt: 1500, completion: 250 },
  { name: "o4-mini", input: 1.1, output: 4.4, latencyMs: 6000, prompt: 2500, completion: 900, reasoning: true },
  { name: "claude-sonnet-4", input: 3, output: 15, latencyMs: 3500, prompt: 12_000, completion: 600 },
  { name: "claude-haiku-3.5", input: 0.8, output: 4, latencyMs: 1400, prompt: 4000, completion: 300 },
  { name: "claude-opus-4", input: 15, output: 75, latencyMs: 7000, prompt: 15_000, completion: 800 },
  { name: "gemini-2.5-pro", input: 1.25, output: 10, latencyMs: 5000, prompt: 8000, completion: 700, reasoning: true },
  { name: "gemini-2.5-flash", input: 0.3, output: 2.5, latencyMs: 1600, prompt: 5000, completion: 400 },
  { name: "deepseek-v3", input: 0.27, output: 1.1, latencyMs: 3000, prompt: 3000, completion: 500 },
  { name: "llama-3.3-70b", input: 0.6, output: 0.6, latencyMs: 1800, prompt: 2000, completion: 300 },
  { name: "mistral-large", input: 2, output: 6, latencyMs: 2200, prompt: 2000, completion: 350 },
  { name: "qwen3-coder", input: 0.4, output: 1.6, latencyMs: 2600, prompt: 10_000, completion: 700 },
] as const;

export const CHANNEL_COUNT = 6;
export const USER_COUNT = 5;
export const TOKEN_COUNT = 40;

/** The channels serving model `index`: one, and every other model a second one too. */
export function channelsOfModel(index: number): number[] {
  return index % 2 === 0 ? [index % CHANNEL_COUNT, (index + 1) % CHANNEL_COUNT] : [index % CHANNEL_COUNT];
}

/** What the gateway gave the cast when it was created (ids), in the order of the specs. */
export interface CastIds {
  adminId: string;
  userIds: string[];
  /** Token `index` belongs to user `index % USER_COUNT`. */
  tokenIds: string[];
  channelIds: string[];
  channelNames: string[];
}

const ENDPOINTS = [
  { endpoint: "/v1/chat/completions", clientFormat: "openai" },
  { endpoint: "/v1/messages", clientFormat: "anthropic" },
  { endpoint: "/v1/responses", clientFormat: "openai" },
  { endpoint: "/v1beta/models/generate:streamGenerateContent", clientFormat: "gemini" },
] as const;

/** mulberry32: small, fast, seeded. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Picks an index by cumulative weights. */
function pick(cumulative: readonly number[], random: number): number {
  const target = random * cumulative.at(-1)!;
  let low = 0;
  let high = cumulative.length - 1;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (cumulative[middle]! < target) low = middle + 1;
    else high = middle;
  }
  return low;
}

function cumulate(weights: number[]): number[] {
  let sum = 0;
  return weights.map((weight) => (sum += weight));
}

interface TokenProfile {
  models: number[];
  modelWeights: number[];
  endpoint: (typeof ENDPOINTS)[number];
  agent: boolean;
}

/** Each token's habits: 2 to 4 models it mostly uses, one client format, an agent or not. */
function profiles(random: () => number): TokenProfile[] {
  return Array.from({ length: TOKEN_COUNT }, (_, index) => {
    const count = 2 + Math.floor(random() * 3);
    const models: number[] = [];
    while (models.length < count) {
      const model = Math.floor(random() * MODELS.length);
      if (!models.includes(model)) models.push(model);
    }
    return {
      models,
      modelWeights: cumulate([0.6, 0.25, 0.1, 0.05].slice(0, count)),
      endpoint: ENDPOINTS[index % 10 < 5 ? 0 : index % 10 < 8 ? 1 : index % 10 < 9 ? 2 : 3]!,
      agent: random() < 0.6,
    };
  });
}

/** How busy an hour is: weekdays over weekends, office hours (UTC) over nights, a slow growth over the month. */
function hourWeight(hourStart: number, first: number): number {
  const date = new Date(hourStart);
  const weekday = date.getUTCDay() % 6 !== 0;
  const hour = date.getUTCHours();
  const office = Math.exp(-((hour - 14) ** 2) / 18);
  return (weekday ? 1 : 0.3) * (0.12 + office) * (1 + (0.3 * (hourStart - first)) / (DAYS * 24 * HOUR_MS));
}

/** Rows per hour over the DAYS days before `end`, summing to `rows`. */
function hourCounts(rows: number, end: number): { start: number; count: number }[] {
  const last = Math.floor(end / HOUR_MS) * HOUR_MS;
  const first = last - (DAYS * 24 - 1) * HOUR_MS;
  const hours = Array.from({ length: DAYS * 24 }, (_, index) => first + index * HOUR_MS);
  const weights = hours.map((start) => hourWeight(start, first));
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  let assigned = 0;
  return hours.map((start, index) => {
    const count = index === hours.length - 1 ? rows - assigned : Math.round((rows * weights[index]!) / total);
    assigned += count;
    return { start, count };
  });
}

/** The month's rows before `end`, oldest first, in batches of `batch`. */
export function* trafficBatches(cast: CastIds, rows: number, end: Date, batch: number): Generator<RequestLogEntry[]> {
  const random = generator(rows);
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const logNormal = (median: number, sigma: number) => median * Math.exp(sigma * normal());
  const tokens = profiles(random);
  // A few heavy tokens (agents running all day) and a long tail.
  const tokenWeights = cumulate(Array.from({ length: TOKEN_COUNT }, (_, index) => 1 / (index + 1) ** 0.9));
  const sessionHex = (seed: number) => (Math.imul(seed, 2_654_435_761) >>> 0).toString(16).padStart(8, "0").repeat(4);
  const end_ = Math.min(end.getTime(), Date.now());
  let pending: RequestLogEntry[] = [];
  for (const { start, count } of hourCounts(rows, end_)) {
    const offsets = Array.from({ length: count }, () => Math.floor(random() * HOUR_MS)).sort((a, b) => a - b);
    for (const offset of offsets) {
      const at = start + offset;
      if (random() < 0.005) {
        pending.push(consoleRow(cast, at, random));
      } else {
        const tokenIndex = pick(tokenWeights, random());
        const profile = tokens[tokenIndex]!;
        const modelIndex = profile.models[pick(profile.modelWeights, random())]!;
        pending.push(tokenRow(cast, { at, tokenIndex, modelIndex, profile, random, logNormal, sessionHex }));
      }
      if (pending.length === batch) {
        yield pending;
        pending = [];
      }
    }
  }
  if (pending.length > 0) yield pending;
}

interface RowInput {
  at: number;
  tokenIndex: number;
  modelIndex: number;
  profile: TokenProfile;
  random: () => number;
  logNormal: (median: number, sigma: number) => number;
  sessionHex: (seed: number) => string;
}

function tokenRow(cast: CastIds, { at, tokenIndex, modelIndex, profile, random, logNormal, sessionHex }: RowInput): RequestLogEntry {
  const model = MODELS[modelIndex]!;
  const served = channelsOfModel(modelIndex);
  const channel = served[served.length > 1 && random() < 0.3 ? 1 : 0]!;
  const stream = random() < 0.65;
  const roll = random();
  // 2% errors: refusals before any channel (429, 400) and upstream failures (5xx).
  const status = roll < 0.98 ? 200 : roll < 0.988 ? 429 : roll < 0.992 ? 400 : roll < 0.996 ? 502 : roll < 0.998 ? 503 : 500;
  const cacheRoll = random();
  const cacheStatus = status === 200 && cacheRoll < 0.04 ? "hit" : cacheRoll < 0.1 ? "miss" : null;
  const refused = status === 429 || status === 400;
  const answered = status === 200 && cacheStatus !== "hit";
  const prompt = refused ? 0 : Math.max(10, Math.round(logNormal(model.prompt, 0.9)));
  const completion = status === 200 ? Math.max(1, Math.round(logNormal(model.completion, 0.8))) : 0;
  const cached = status === 200 && (profile.agent || random() < 0.2) ? Math.round(prompt * (0.3 + 0.6 * random())) : 0;
  const reasoning = "reasoning" in model && status === 200 ? Math.round(completion * 0.5) : 0;
  const cost = ((prompt - cached) * model.input + cached * model.input * 0.1 + completion * model.output) / 1_000_000;
  const latency = cacheStatus === "hit" ? 2 + Math.floor(random() * 8) : refused ? 1 + Math.floor(random() * 4) : Math.round(logNormal(model.latencyMs, 0.6));
  const channelId = refused || cacheStatus === "hit" ? null : cast.channelIds[channel]!;
  const attempts: AttemptRecord[] | null = channelId
    ? [
        {
          channelId,
          channelName: cast.channelNames[channel]!,
          model: model.name,
          status,
          error: status >= 500 ? `upstream answered ${status}` : null,
          latencyMs: latency,
          keyHint: "x9Qa",
        },
      ]
    : null;
  // An agent's session lasts about 45 minutes; a few run side by side.
  const session = profile.agent && random() < 0.9 ? sessionHex(tokenIndex * 1_000_003 + Math.floor(at / 2_700_000) * 7 + Math.floor(random() * 3)) : null;
  return {
    id: newLogId(at),
    createdAt: new Date(at),
    endpoint: profile.endpoint.endpoint,
    clientFormat: profile.endpoint.clientFormat,
    method: "POST",
    tokenId: cast.tokenIds[tokenIndex]!,
    userId: cast.userIds[tokenIndex % USER_COUNT]!,
    channelId,
    model: model.name,
    upstreamModel: channelId ? model.name : null,
    status,
    stream,
    promptTokens: answered || cacheStatus === "hit" ? prompt : 0,
    completionTokens: completion,
    cachedTokens: cached,
    reasoningTokens: reasoning,
    usageEstimated: false,
    latencyMs: latency,
    firstTokenMs: stream && status === 200 ? Math.round(latency * (0.1 + 0.3 * random())) : null,
    costUsd: answered ? cost : 0,
    errorMessage: status >= 400 ? (refused ? (status === 429 ? "Rate limit reached for requests per minute" : "messages: Required") : `Upstream error ${status}`) : null,
    warnings: null,
    attempts,
    sessionHash: session,
    cacheStatus,
    cacheSavedUsd: cacheStatus === "hit" ? cost : 0,
  };
}

/** The admin's own console sessions (the Playground): no token. */
function consoleRow(cast: CastIds, at: number, random: () => number): RequestLogEntry {
  const modelIndex = Math.floor(random() * MODELS.length);
  const channel = channelsOfModel(modelIndex)[0]!;
  const latency = 800 + Math.floor(random() * 2000);
  return {
    id: newLogId(at),
    createdAt: new Date(at),
    endpoint: "/v1/chat/completions",
    clientFormat: "openai",
    method: "POST",
    tokenId: null,
    userId: cast.adminId,
    channelId: cast.channelIds[channel]!,
    model: MODELS[modelIndex]!.name,
    upstreamModel: MODELS[modelIndex]!.name,
    status: 200,
    stream: true,
    promptTokens: 200,
    completionTokens: 150,
    cachedTokens: 0,
    reasoningTokens: 0,
    usageEstimated: false,
    latencyMs: latency,
    firstTokenMs: Math.round(latency / 4),
    costUsd: 0.001,
    errorMessage: null,
    warnings: null,
    attempts: null,
    sessionHash: null,
    cacheStatus: null,
    cacheSavedUsd: 0,
  };
}
