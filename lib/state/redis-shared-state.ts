import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { RateLimiterRedis, type RateLimiterAbstract } from "rate-limiter-flexible";
import { WINDOW_UNITS, type CounterResult, type EventHandler, type SharedState, type WindowCharge, type WindowState, type WindowsResult, type WindowUnit } from "./shared-state";

const PREFIX = "gw:";
const EVENTS_CHANNEL = `${PREFIX}events`;
const PUBLISH_WAIT_MS = 1000;
/** How long an announcement waits for the other processes to say they applied it. */
const APPLIED_WAIT_MS = 3000;

// KEYS[1] counter; ARGV amount, limit (-1: none), ttl seconds. Returns {status, value}:
// status -1 means the counter is absent and must be initialised first.
const ADD_WITHIN = `
local current = redis.call('GET', KEYS[1])
if not current then return {-1, '0'} end
local amount = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
if limit >= 0 and tonumber(current) + amount > limit then return {0, current} end
return {1, redis.call('INCRBYFLOAT', KEYS[1], ARGV[1])}
`;
// Adjusts only an existing counter (a reservation settled after the key expired is dropped).
const ADJUST = `
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('INCRBYFLOAT', KEYS[1], ARGV[1]) end
return false
`;

// Limit windows: a hash per window {start, tokens, usd, requests} that expires when the
// window runs out. KEYS the windows; ARGV per window: ttl ms, seeded (1: a missing one
// must be loaded first), then the amounts and the limits (-1: none) of tokens, usd,
// requests. Replies {1, start...}, {0, index, unit, used, ms left} or {-1, missing index...}.
// The window opens at Redis's clock, so every process agrees on it.
const RESERVE_WINDOWS = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local units = {'tokens', 'usd', 'requests'}
local missing = {}
for i, key in ipairs(KEYS) do
  local base = (i - 1) * 8
  local open = redis.call('EXISTS', key) == 1
  if not open and ARGV[base + 2] == '1' then
    table.insert(missing, i)
  else
    for u = 1, 3 do
      local amount = tonumber(ARGV[base + 2 + u])
      local limit = tonumber(ARGV[base + 5 + u])
      if limit >= 0 then
        local used = 0
        if open then used = tonumber(redis.call('HGET', key, units[u]) or '0') end
        if used + amount > limit then
          local left = tonumber(ARGV[base + 1])
          if open then left = redis.call('PTTL', key) end
          return {0, i, u, tostring(used), left}
        end
      end
    end
  end
end
if #missing > 0 then return {-1, unpack(missing)} end
local starts = {1}
for i, key in ipairs(KEYS) do
  local base = (i - 1) * 8
  if redis.call('EXISTS', key) == 0 then
    redis.call('HSET', key, 'start', tostring(now))
    redis.call('PEXPIRE', key, ARGV[base + 1])
  end
  for u = 1, 3 do
    if tonumber(ARGV[base + 2 + u]) ~= 0 then redis.call('HINCRBYFLOAT', key, units[u], ARGV[base + 2 + u]) end
  end
  table.insert(starts, redis.call('HGET', key, 'start'))
end
return starts
`;
// A calendar window rebuilt from the database; the first process to get here wins.
// ARGV ttl ms, tokens, usd, requests.
const SEED_WINDOW = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
redis.call('HSET', KEYS[1], 'start', tostring(now), 'tokens', ARGV[2], 'usd', ARGV[3], 'requests', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
`;
// ARGV per window: the start it was reserved in, then the deltas of tokens, usd, requests.
const SETTLE_WINDOWS = `
local units = {'tokens', 'usd', 'requests'}
for i, key in ipairs(KEYS) do
  local base = (i - 1) * 4
  if redis.call('HGET', key, 'start') == ARGV[base + 1] then
    for u = 1, 3 do
      if tonumber(ARGV[base + 1 + u]) ~= 0 then redis.call('HINCRBYFLOAT', key, units[u], ARGV[base + 1 + u]) end
    end
  end
end
return 1
`;
// Takes or renews a lease. ARGV holder, ttl ms.
const ACQUIRE_LEASE = `
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`;

// Deletes a lease only if ARGV holder holds it.
const RELEASE_LEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
`;

// The bounded store: KEYS[1] the value, KEYS[2] a sorted set of keys by expiry (ms),
// KEYS[3] a hash of sizes, KEYS[4] the total; ARGV key, value, ttl ms, now ms, max bytes,
// value-key prefix. Expired keys leave the totals first, then the nearest expiry while over.
const PUT_BOUNDED = `
local function drop(member)
  local size = redis.call('HGET', KEYS[3], member)
  if size then redis.call('DECRBY', KEYS[4], size) end
  redis.call('HDEL', KEYS[3], member)
  redis.call('ZREM', KEYS[2], member)
  redis.call('DEL', ARGV[6] .. member)
end
local now = tonumber(ARGV[4])
for _, member in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, 1000)) do drop(member) end
drop(ARGV[1])
local size = string.len(ARGV[2])
local max = tonumber(ARGV[5])
if size > max then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[3]), ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], size)
local total = redis.call('INCRBY', KEYS[4], size)
while total > max do
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
  if not oldest then break end
  drop(oldest)
  total = tonumber(redis.call('GET', KEYS[4]) or '0')
end
return 1
`;

type AddWithinReply = [number, string];

/** Shared state in Redis: Lua scripts for atomic counters, pub/sub for events. */
export class RedisSharedState implements SharedState {
  readonly kind = "redis" as const;
  private readonly redis: Redis;
  private subscriber: Redis | undefined;
  private readonly limiters = new Map<string, RateLimiterRedis>();
  private readonly handlers: EventHandler[] = [];
  /** This process's announcements waiting to be applied elsewhere: by id, what was heard back. */
  private readonly announced = new Map<string, { applied: Set<string>; receivers: number | undefined; done: () => void }>();
  /** Whether this process's subscription is live: only then does PUBLISH count it, and are answers heard. */
  private subscribed = false;
  /** Identifies this process's own events, which it has already applied. */
  private readonly origin = randomUUID();

  private constructor(
    private readonly RedisClient: typeof Redis,
    private readonly url: string,
  ) {
    this.redis = new RedisClient(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false });
    this.redis.defineCommand("gwAddWithin", { numberOfKeys: 1, lua: ADD_WITHIN });
    this.redis.defineCommand("gwAdjust", { numberOfKeys: 1, lua: ADJUST });
    this.redis.defineCommand("gwReserveWindows", { lua: RESERVE_WINDOWS });
    this.redis.defineCommand("gwSeedWindow", { numberOfKeys: 1, lua: SEED_WINDOW });
    this.redis.defineCommand("gwSettleWindows", { lua: SETTLE_WINDOWS });
    this.redis.defineCommand("gwAcquireLease", { numberOfKeys: 1, lua: ACQUIRE_LEASE });
    this.redis.defineCommand("gwReleaseLease", { numberOfKeys: 1, lua: RELEASE_LEASE });
    this.redis.defineCommand("gwPutBounded", { numberOfKeys: 4, lua: PUT_BOUNDED });
  }

  /** Connects and checks the server answers, so a wrong REDIS_URL fails the start. */
  static async connect(url: string): Promise<RedisSharedState> {
    // Imported here, so a deployment without Redis never loads the client.
    const { Redis } = await import("ioredis");
    const state = new RedisSharedState(Redis, url);
    await state.redis.ping();
    return state;
  }

  private get commands() {
    return this.redis as unknown as {
      gwAddWithin(key: string, amount: number, limit: number, ttl: number): Promise<AddWithinReply>;
      gwAdjust(key: string, delta: number): Promise<string | null>;
      gwReserveWindows(keyCount: number, ...keysThenArguments: (string | number)[]): Promise<(number | string)[]>;
      gwSeedWindow(key: string, ...values: (string | number)[]): Promise<number>;
      gwSettleWindows(keyCount: number, ...keysThenArguments: (string | number)[]): Promise<number>;
      gwAcquireLease(key: string, holder: string, ttlMs: number): Promise<number>;
      gwReleaseLease(key: string, holder: string): Promise<number>;
      gwPutBounded(...keysThenArguments: (string | number)[]): Promise<number>;
    };
  }

  async addWithin(key: string, amount: number, limit: number | null, initial: () => Promise<number>, ttlSeconds: number): Promise<CounterResult> {
    const fullKey = PREFIX + key;
    for (let tries = 0; tries < 3; tries++) {
      const [status, value] = await this.commands.gwAddWithin(fullKey, amount, limit ?? -1, ttlSeconds);
      if (status >= 0) return { ok: status === 1, value: Number(value) };
      // Absent: start it from the database; the first process to set it wins.
      await this.redis.set(fullKey, String(await initial()), "EX", ttlSeconds, "NX");
    }
    throw new Error(`quota counter ${key} could not be initialised`);
  }

  async adjust(key: string, delta: number): Promise<void> {
    if (delta !== 0) await this.commands.gwAdjust(PREFIX + key, delta);
  }

  async forget(keys: string[]): Promise<void> {
    if (keys.length > 0) await this.redis.del(...keys.map((key) => PREFIX + key));
  }

  async putJson(key: string, value: unknown, ttlSeconds: number): Promise<void> {
    await this.redis.set(PREFIX + key, JSON.stringify(value), "EX", ttlSeconds);
  }

  async getJson(key: string): Promise<unknown> {
    const text = await this.redis.get(PREFIX + key);
    return text === null ? undefined : JSON.parse(text);
  }

  rateLimiter(name: string, points: number, durationSeconds: number): RateLimiterAbstract {
    const id = `${name}:${points}:${durationSeconds}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      limiter = new RateLimiterRedis({ storeClient: this.redis, keyPrefix: `${PREFIX}${name}`, points, duration: durationSeconds });
      this.limiters.set(id, limiter);
    }
    return limiter;
  }

  async publish(topic: string, message: unknown): Promise<void> {
    // Applied here at once; other processes get it through Redis, which has written it
    // to every subscriber's connection by the time PUBLISH answers. A Redis that does not
    // answer holds the caller for at most PUBLISH_WAIT_MS (the caches' TTL catches up).
    queueMicrotask(() => this.deliver(topic, message));
    const published = this.redis.publish(EVENTS_CHANNEL, JSON.stringify({ origin: this.origin, topic, message })).catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, PUBLISH_WAIT_MS)));
    await Promise.race([published, waited]);
    clearTimeout(timer);
  }

  async announce(topic: string, message: unknown): Promise<void> {
    const id = randomUUID();
    let done = () => {};
    const allApplied = new Promise<void>((resolve) => (done = resolve));
    const entry = { applied: new Set<string>(), receivers: undefined as number | undefined, done };
    this.announced.set(id, entry);
    queueMicrotask(() => void this.deliver(topic, message));
    let timer: NodeJS.Timeout | undefined;
    try {
      const published = this.redis.publish(EVENTS_CHANNEL, JSON.stringify({ origin: this.origin, topic, message, id })).catch(() => 0);
      const unanswered = new Promise<number>((resolve) => (timer = setTimeout(() => resolve(0), PUBLISH_WAIT_MS)));
      // PUBLISH answers how many connections got it: every process's subscriber, this one's among them.
      const receivers = await Promise.race([published, unanswered]);
      clearTimeout(timer);
      // The answers come through this process's own subscription: without one, none would be heard.
      if (!this.subscribed) return;
      entry.receivers = Math.max(0, receivers - 1);
      if (entry.applied.size >= entry.receivers) return;
      const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, APPLIED_WAIT_MS)));
      await Promise.race([allApplied, late]);
    } finally {
      clearTimeout(timer);
      this.announced.delete(id);
    }
  }

  subscribe(handler: EventHandler): void {
    this.handlers.push(handler);
    if (this.subscriber) return;
    this.subscriber = new this.RedisClient(this.url, { maxRetriesPerRequest: null });
    const subscriber = this.subscriber;
    let resubscribes = false;
    subscriber
      .subscribe(EVENTS_CHANNEL)
      .then(() => {
        this.subscribed = true;
        resubscribes = true;
      })
      .catch(() => undefined);
    // A reconnected client subscribes again by itself (ioredis's autoResubscribe) as it gets ready.
    subscriber.on("close", () => (this.subscribed = false));
    subscriber.on("ready", () => (this.subscribed = resubscribes));
    subscriber.on("message", (_channel: string, text: string) => {
      let event: { origin?: string; topic?: string; message?: unknown; id?: string; applied?: string } | null;
      try {
        event = JSON.parse(text);
      } catch {
        return; // Not one of ours.
      }
      if (!event || typeof event !== "object" || typeof event.origin !== "string") return;
      if (typeof event.applied === "string") {
        // Counted by process: an answer repeated is still one process.
        const entry = this.announced.get(event.applied);
        entry?.applied.add(event.origin);
        if (entry && entry.applied.size >= (entry.receivers ?? Number.POSITIVE_INFINITY)) entry.done();
        return;
      }
      if (typeof event.topic !== "string") return;
      if (event.origin === this.origin) return;
      const applied = this.deliver(event.topic, event.message);
      if (typeof event.id === "string") {
        const reply = JSON.stringify({ origin: this.origin, applied: event.id });
        void applied.then(() => this.redis.publish(EVENTS_CHANNEL, reply).catch(() => undefined));
      }
    });
  }

  /** Hands the event to every handler; settles once those that answered a promise are done. */
  private deliver(topic: string, message: unknown): Promise<unknown> {
    const pending: unknown[] = [];
    for (const handler of this.handlers) {
      try {
        pending.push(handler(topic, message));
      } catch {
        // A handler's own failure is its to report; the event still counts as delivered.
      }
    }
    return Promise.allSettled(pending);
  }

  async close(): Promise<void> {
    this.subscribed = false;
    for (const entry of this.announced.values()) entry.done();
    this.subscriber?.disconnect();
    await this.redis.quit().catch(() => undefined);
  }

  async putSliding(key: string, value: unknown, ttlSeconds: number): Promise<void> {
    await this.redis.set(PREFIX + key, JSON.stringify(value), "EX", ttlSeconds);
  }

  async getSliding(key: string, ttlSeconds: number): Promise<unknown> {
    // GETEX reads and renews the TTL in one command; Redis bounds its memory by its own policy.
    const text = await this.redis.getex(PREFIX + key, "EX", ttlSeconds);
    return text === null ? undefined : JSON.parse(text);
  }

  async reserveWindows(charges: WindowCharge[]): Promise<WindowsResult> {
    if (charges.length === 0) return { ok: true, starts: [] };
    const keys = charges.map((charge) => PREFIX + charge.key);
    const values = charges.flatMap((charge) => [
      Math.max(1, Math.ceil(charge.ttlMs)),
      charge.seed ? 1 : 0,
      ...WINDOW_UNITS.map((unit) => charge.amounts[unit]),
      ...WINDOW_UNITS.map((unit) => charge.limits[unit] ?? -1),
    ]);
    for (let tries = 0; tries < 3; tries++) {
      const reply = await this.commands.gwReserveWindows(keys.length, ...keys, ...values);
      const status = Number(reply[0]);
      if (status === 1) return { ok: true, starts: reply.slice(1).map(Number) };
      if (status === 0) {
        return { ok: false, index: Number(reply[1]) - 1, unit: WINDOW_UNITS[Number(reply[2]) - 1]!, used: Number(reply[3]), retryAfterMs: Number(reply[4]) };
      }
      // Calendar windows no process has counted yet (or Redis forgot): rebuild them from the database.
      await Promise.all(
        reply.slice(1).map(async (position) => {
          const charge = charges[Number(position) - 1]!;
          const used = await charge.seed!.load();
          await this.commands.gwSeedWindow(PREFIX + charge.key, Math.max(1, Math.ceil(charge.ttlMs)), used.tokens, used.usd, used.requests);
        }),
      );
    }
    throw new Error("limit windows could not be initialised");
  }

  async settleWindows(settlements: { key: string; start: number; deltas: Record<WindowUnit, number> }[]): Promise<void> {
    if (settlements.length === 0) return;
    const keys = settlements.map((settlement) => PREFIX + settlement.key);
    const values = settlements.flatMap((settlement) => [String(settlement.start), ...WINDOW_UNITS.map((unit) => settlement.deltas[unit])]);
    await this.commands.gwSettleWindows(keys.length, ...keys, ...values);
  }

  async readWindows(keys: string[]): Promise<(WindowState | undefined)[]> {
    if (keys.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const key of keys) pipeline.hgetall(PREFIX + key).pttl(PREFIX + key);
    const replies = (await pipeline.exec()) ?? [];
    return keys.map((_, index) => {
      const hash = replies[index * 2]?.[1] as Record<string, string> | undefined;
      const ttl = Number(replies[index * 2 + 1]?.[1]);
      if (!hash || hash.start === undefined || ttl <= 0) return undefined;
      const used = Object.fromEntries(WINDOW_UNITS.map((unit) => [unit, Number(hash[unit] ?? 0)])) as Record<WindowUnit, number>;
      return { start: Number(hash.start), resetsInMs: ttl, used };
    });
  }

  async acquireLease(name: string, holder: string, ttlMs: number): Promise<boolean> {
    return (await this.commands.gwAcquireLease(`${PREFIX}lease:${name}`, holder, Math.max(1, Math.ceil(ttlMs)))) === 1;
  }

  async releaseLease(name: string, holder: string): Promise<void> {
    await this.commands.gwReleaseLease(`${PREFIX}lease:${name}`, holder);
  }

  /** The bounded store's keys share a hash tag, so one script can touch them all on a cluster too. */
  private boundedKeys(store: string) {
    const base = `${PREFIX}${store}:{${store}}`;
    return { values: `${base}:value:`, expiry: `${base}:expiry`, sizes: `${base}:sizes`, total: `${base}:bytes` };
  }

  async putBounded(store: string, key: string, value: string, ttlSeconds: number, maxBytes: number): Promise<void> {
    const keys = this.boundedKeys(store);
    // Sizes in bytes as Redis counts them (Lua's string.len on the UTF-8 value).
    await this.commands.gwPutBounded(keys.values + key, keys.expiry, keys.sizes, keys.total, key, value, Math.round(ttlSeconds * 1000), Date.now(), maxBytes, keys.values);
  }

  async getBounded(store: string, key: string): Promise<string | undefined> {
    return (await this.redis.get(this.boundedKeys(store).values + key)) ?? undefined;
  }
}
