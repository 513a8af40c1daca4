import { EventEmitter } from "node:events";
import { LRUCache } from "lru-cache";
import { RateLimiterMemory, type RateLimiterAbstract } from "rate-limiter-flexible";
import type { CounterResult, SharedState } from "./shared-state";

type Counter = { value: number; expiresAt: number };

/** One process's shared state: plain maps, with concurrent first uses sharing one load. */
export class MemorySharedState implements SharedState {
  readonly kind = "memory" as const;
  private readonly counters = new Map<string, Counter>();
  private readonly loading = new Map<string, Promise<number>>();
  private readonly limiters = new Map<string, RateLimiterMemory>();
  private readonly events = new EventEmitter();
  private readonly values = new LRUCache<string, { json: string }>({ max: 1000 });

  async addWithin(key: string, amount: number, limit: number | null, initial: () => Promise<number>, ttlSeconds: number): Promise<CounterResult> {
    const now = Date.now();
    let counter = this.counters.get(key);
    if (!counter || counter.expiresAt <= now) {
      let load = this.loading.get(key);
      if (!load) {
        load = initial().finally(() => this.loading.delete(key));
        this.loading.set(key, load);
      }
      const value = await load;
      counter = this.counters.get(key);
      if (!counter || counter.expiresAt <= now) {
        counter = { value, expiresAt: 0 };
        this.counters.set(key, counter);
      }
    }
    counter.expiresAt = now + ttlSeconds * 1000;
    if (limit !== null && counter.value + amount > limit) return { ok: false, value: counter.value };
    counter.value += amount;
    return { ok: true, value: counter.value };
  }

  async adjust(key: string, delta: number): Promise<void> {
    const counter = this.counters.get(key);
    if (counter) counter.value += delta;
  }

  async forget(keys: string[]): Promise<void> {
    for (const key of keys) this.counters.delete(key);
  }

  async putJson(key: string, value: unknown, ttlSeconds: number): Promise<void> {
    this.values.set(key, { json: JSON.stringify(value) }, { ttl: ttlSeconds * 1000 });
  }

  async getJson(key: string): Promise<unknown> {
    const entry = this.values.get(key);
    return entry ? JSON.parse(entry.json) : undefined;
  }

  rateLimiter(name: string, points: number, durationSeconds: number): RateLimiterAbstract {
    const id = `${name}:${points}:${durationSeconds}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      limiter = new RateLimiterMemory({ keyPrefix: name, points, duration: durationSeconds });
      this.limiters.set(id, limiter);
    }
    return limiter;
  }

  async publish(topic: string, message: unknown): Promise<void> {
    queueMicrotask(() => this.events.emit("message", topic, message));
  }

  subscribe(handler: (topic: string, message: unknown) => void): void {
    this.events.on("message", handler);
  }

  async close(): Promise<void> {
    this.events.removeAllListeners();
  }

  private readonly bounded = new Map<string, BoundedStore>();

  async putBounded(store: string, key: string, value: string, ttlSeconds: number, maxBytes: number): Promise<void> {
    let entries = this.bounded.get(store);
    if (!entries) this.bounded.set(store, (entries = new BoundedStore()));
    entries.put(key, value, Date.now() + ttlSeconds * 1000, maxBytes);
  }

  async getBounded(store: string, key: string): Promise<string | undefined> {
    return this.bounded.get(store)?.get(key, Date.now());
  }
}

/** Values with an expiry, their sizes summed; past the bound, the nearest expiry leaves first. */
class BoundedStore {
  private readonly entries = new Map<string, { value: string; expiresAt: number; bytes: number }>();
  private bytes = 0;

  get(key: string, now: number): string | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt > now) return entry.value;
    this.remove(key);
    return undefined;
  }

  put(key: string, value: string, expiresAt: number, maxBytes: number): void {
    this.remove(key);
    const bytes = Buffer.byteLength(value);
    if (bytes > maxBytes) return;
    this.entries.set(key, { value, expiresAt, bytes });
    this.bytes += bytes;
    if (this.bytes <= maxBytes) return;
    const byExpiry = [...this.entries].sort((left, right) => left[1].expiresAt - right[1].expiresAt);
    for (const [oldest] of byExpiry) {
      if (this.bytes <= maxBytes) break;
      this.remove(oldest);
    }
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }
}
