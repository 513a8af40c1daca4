import { EventEmitter } from "node:events";
import { LRUCache } from "lru-cache";
import { RateLimiterMemory, type RateLimiterAbstract } from "rate-limiter-flexible";
import { entriesAtMost } from "./lru-entries";
import { WINDOW_UNITS, type CounterResult, type EventHandler, type SharedState, type WindowCharge, type WindowState, type WindowsResult, type WindowUnit } from "./shared-state";

type Window = { start: number; expiresAt: number; used: number[] };

type Counter = { value: number; expiresAt: number };

/** One process's shared state: plain maps, with concurrent first uses sharing one load. */
export class MemorySharedState implements SharedState {
  readonly kind = "memory" as const;
  private readonly counters = new Map<string, Counter>();
  private readonly loading = new Map<string, Promise<number>>();
  private readonly limiters = new Map<string, RateLimiterMemory>();
  private readonly events = new EventEmitter();
  private readonly values = new LRUCache<string, { json: string }>({ max: 1000 });
  private readonly windows = new Map<string, Window>();
  private reservations = 0;
  private readonly leases = new Map<string, { holder: string; expiresAt: number }>();

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

  /** One process: nobody else to wait for. */
  announce(topic: string, message: unknown): Promise<void> {
    return this.publish(topic, message);
  }

  subscribe(handler: EventHandler): void {
    this.events.on("message", handler);
  }

  async close(): Promise<void> {
    this.events.removeAllListeners();
  }

  // Sliding values: a bounded LRU of its own, so many sessions never push out putJson's values.
  private readonly sliding = new LRUCache<string, { json: string }>(entriesAtMost(SLIDING_MAX_ENTRIES));

  async putSliding(key: string, value: unknown, ttlSeconds: number): Promise<void> {
    this.sliding.set(key, { json: JSON.stringify(value) }, { ttl: ttlSeconds * 1000 });
  }

  async getSliding(key: string, ttlSeconds: number): Promise<unknown> {
    const entry = this.sliding.get(key);
    if (!entry) return undefined;
    this.sliding.set(key, entry, { ttl: ttlSeconds * 1000 });
    return JSON.parse(entry.json);
  }

  async reserveWindows(charges: WindowCharge[]): Promise<WindowsResult> {
    // Windows of idle subjects are dropped now and then, so the map stays bounded by the active ones.
    if ((this.reservations = (this.reservations + 1) % 1000) === 0) {
      const now = Date.now();
      for (const [key, window] of this.windows) if (window.expiresAt <= now) this.windows.delete(key);
    }
    for (;;) {
      const now = Date.now();
      const open = charges.map((charge) => this.openWindow(charge.key, now));
      if (!charges.some((charge, index) => charge.seed && !open[index])) return this.addAll(charges, open, now);
      const missing = charges.filter((charge, index) => charge.seed && !open[index]);
      // Calendar windows not counted yet: load them, keep the first load, and look again.
      const loaded = await Promise.all(missing.map(async (charge) => ({ charge, used: await charge.seed!.load() })));
      for (const { charge, used } of loaded) {
        if (this.openWindow(charge.key, Date.now())) continue;
        this.windows.set(charge.key, { start: Date.now(), expiresAt: Date.now() + charge.ttlMs, used: WINDOW_UNITS.map((unit) => used[unit]) });
      }
    }
  }

  // Synchronous from the check to the last add: no other request interleaves.
  private addAll(charges: WindowCharge[], open: (Window | undefined)[], now: number): WindowsResult {
    for (let index = 0; index < charges.length; index += 1) {
      const charge = charges[index]!;
      for (let position = 0; position < WINDOW_UNITS.length; position += 1) {
        const unit = WINDOW_UNITS[position]!;
        const limit = charge.limits[unit];
        const window = open[index];
        const used = window?.used[position] ?? 0;
        if (limit !== null && used + charge.amounts[unit] > limit) {
          return { ok: false, index, unit, used, retryAfterMs: window ? window.expiresAt - now : charge.ttlMs };
        }
      }
    }
    const starts: number[] = [];
    for (let index = 0; index < charges.length; index += 1) {
      const charge = charges[index]!;
      let window = open[index];
      if (!window) {
        window = { start: now, expiresAt: now + charge.ttlMs, used: [0, 0, 0] };
        this.windows.set(charge.key, window);
      }
      window.used[0]! += charge.amounts.tokens;
      window.used[1]! += charge.amounts.usd;
      window.used[2]! += charge.amounts.requests;
      starts.push(window.start);
    }
    return { ok: true, starts };
  }

  private openWindow(key: string, now: number): Window | undefined {
    const window = this.windows.get(key);
    if (window && window.expiresAt > now) return window;
    if (window) this.windows.delete(key);
    return undefined;
  }

  async settleWindows(settlements: { key: string; start: number; deltas: Record<WindowUnit, number> }[]): Promise<void> {
    const now = Date.now();
    for (const { key, start, deltas } of settlements) {
      const window = this.openWindow(key, now);
      if (!window || window.start !== start) continue;
      for (const [position, unit] of WINDOW_UNITS.entries()) window.used[position]! += deltas[unit];
    }
  }

  async readWindows(keys: string[]): Promise<(WindowState | undefined)[]> {
    const now = Date.now();
    return keys.map((key) => {
      const window = this.openWindow(key, now);
      if (!window) return undefined;
      const used = Object.fromEntries(WINDOW_UNITS.map((unit, position) => [unit, window.used[position]!])) as Record<WindowUnit, number>;
      return { start: window.start, resetsInMs: window.expiresAt - now, used };
    });
  }

  async acquireLease(name: string, holder: string, ttlMs: number): Promise<boolean> {
    const now = Date.now();
    const lease = this.leases.get(name);
    if (lease && lease.expiresAt > now && lease.holder !== holder) return false;
    this.leases.set(name, { holder, expiresAt: now + ttlMs });
    return true;
  }

  async releaseLease(name: string, holder: string): Promise<void> {
    if (this.leases.get(name)?.holder === holder) this.leases.delete(name);
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

/** Sliding values one process keeps at most (~100 bytes each). */
const SLIDING_MAX_ENTRIES = 100_000;
