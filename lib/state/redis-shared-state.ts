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

  async putSliding(key: string, value: unknown, ttlSeconds: number): Promise<void> {
    await this.redis.set(PREFIX + key, JSON.stringify(value), "EX", ttlSeconds);
  }

  async getSliding(key: string, ttlSeconds: number): Promise<unknown> {
    // GETEX reads and renews the TTL in one command; Redis bounds its memory by its own policy.
    const text = await this.redis.getex(PREFIX + key, "EX", ttlSeconds);
    return text === null ? undefined : JSON.parse(text);
  }
}
