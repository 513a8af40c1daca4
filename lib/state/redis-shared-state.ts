import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { RateLimiterRedis, type RateLimiterAbstract } from "rate-limiter-flexible";
import type { CounterResult, SharedState } from "./shared-state";

const PREFIX = "gw:";
const EVENTS_CHANNEL = `${PREFIX}events`;
const PUBLISH_WAIT_MS = 1000;

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
  private readonly handlers: ((topic: string, message: unknown) => void)[] = [];
  /** Identifies this process's own events, which it has already applied. */
  private readonly origin = randomUUID();

  private constructor(
    private readonly RedisClient: typeof Redis,
    private readonly url: string,
  ) {
    this.redis = new RedisClient(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false });
    this.redis.defineCommand("gwAddWithin", { numberOfKeys: 1, lua: ADD_WITHIN });
    this.redis.defineCommand("gwAdjust", { numberOfKeys: 1, lua: ADJUST });
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

  subscribe(handler: (topic: string, message: unknown) => void): void {
    this.handlers.push(handler);
    if (this.subscriber) return;
    this.subscriber = new this.RedisClient(this.url, { maxRetriesPerRequest: null });
    void this.subscriber.subscribe(EVENTS_CHANNEL);
    this.subscriber.on("message", (_channel: string, text: string) => {
      try {
        const event = JSON.parse(text) as { origin: string; topic: string; message: unknown };
        if (event.origin !== this.origin) this.deliver(event.topic, event.message);
      } catch {
        // Not one of ours.
      }
    });
  }

  private deliver(topic: string, message: unknown): void {
    for (const handler of this.handlers) handler(topic, message);
  }

  async close(): Promise<void> {
    this.subscriber?.disconnect();
    await this.redis.quit().catch(() => undefined);
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
