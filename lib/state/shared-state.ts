import type { RateLimiterAbstract } from "rate-limiter-flexible";

/** The result of trying to add to a bounded counter. */
export interface CounterResult {
  ok: boolean;
  /** The counter's value after the call (unchanged when refused). */
  value: number;
}

/** The units a limit window counts, in this order wherever they travel as arrays. */
export const WINDOW_UNITS = ["tokens", "usd", "requests"] as const;
export type WindowUnit = (typeof WINDOW_UNITS)[number];

/** Applies an event another process (or this one) published; a promise when that takes a while. */
export type EventHandler = (topic: string, message: unknown) => unknown;

/** One limit window's share of a request: what it adds, and the most the window allows. */
export interface WindowCharge {
  key: string;
  /** How long a counter this call opens lives: the rolling window's length, or until the calendar window ends. */
  ttlMs: number;
  amounts: Record<WindowUnit, number>;
  /** null: that unit is not limited by this window. */
  limits: Record<WindowUnit, number | null>;
  /**
   * A calendar window's counter that is missing starts from what the database says was spent
   * since the period began; absent (a rolling window), a missing counter opens now, empty.
   */
  seed?: { load: () => Promise<Record<WindowUnit, number>> };
}

export type WindowsResult =
  // `start`: when the counter was created (a rolling window: when it opened). A settlement
  // applies only to the counter it reserved in, never to one rebuilt or reopened since.
  { ok: true; starts: number[] } | { ok: false; index: number; unit: WindowUnit; used: number; retryAfterMs: number };

export interface WindowState {
  start: number;
  resetsInMs: number;
  used: Record<WindowUnit, number>;
}

/**
 * State every gateway process must agree on: bounded counters (quota reservations),
 * rate limiters, and broadcast events (circuit changes, cache invalidation). In memory
 * for one process; in Redis when REDIS_URL is set, so N processes share one view.
 */
export interface SharedState {
  readonly kind: "memory" | "redis";
  /**
   * Adds `amount` to counter `key` unless the result would pass `limit` (null: no limit).
   * An absent counter starts from `initial()` (what the database says was spent).
   */
  addWithin(key: string, amount: number, limit: number | null, initial: () => Promise<number>, ttlSeconds: number): Promise<CounterResult>;
  /** Adds `delta` (may be negative) to an existing counter; a missing one stays missing. */
  adjust(key: string, delta: number): Promise<void>;
  /** Forgets counters, so they start again from the database. */
  forget(keys: string[]): Promise<void>;
  /** Keeps a small JSON value for a while (the Playground's recorded exchanges). */
  putJson(key: string, value: unknown, ttlSeconds: number): Promise<void>;
  getJson(key: string): Promise<unknown>;
  /** A limiter allowing `points` per `durationSeconds` per key. */
  rateLimiter(name: string, points: number, durationSeconds: number): RateLimiterAbstract;
  /**
   * Sends an event to every process, this one included. Settles once the event has
   * been handed to every process, or after a short wait if the store does not answer
   * (never rejects: a lost event is caught up by the caches' TTLs), so an admin change
   * can answer only after the others have it.
   */
  publish(topic: string, message: unknown): Promise<void>;
  /**
   * Publishes a change, then waits until every other process has applied it (its handlers'
   * promises settled), or at most a few seconds for one that does not answer: an admin
   * change answers only once the next request, whichever process takes it, routes on it.
   */
  announce(topic: string, message: unknown): Promise<void>;
  /** `handler` may answer a promise: the event counts as applied here once it settles. */
  subscribe(handler: EventHandler): void;
  close(): Promise<void>;
  /**
   * A small JSON value whose TTL starts again at every read (session pins): kept apart from
   * putJson's values, and bounded in memory (the least recently used go first).
   */
  putSliding(key: string, value: unknown, ttlSeconds: number): Promise<void>;
  /** The value, its TTL renewed to `ttlSeconds` in the same step (one round trip); undefined when absent or expired. */
  getSliding(key: string, ttlSeconds: number): Promise<unknown>;

  // Limit windows and the retention sweep's lease.
  /**
   * Adds every charge, or none when one would pass its window's limit: a window opens with
   * its first counted request, its counter expires when the window runs out, so all
   * processes agree on when it started. Losing one is safe: it reopens (rolling) or is
   * rebuilt from the database (calendar).
   */
  reserveWindows(charges: WindowCharge[]): Promise<WindowsResult>;
  /** Adds deltas to windows still in the period that was reserved (`start`); a window since reopened is left alone. */
  settleWindows(settlements: { key: string; start: number; deltas: Record<WindowUnit, number> }[]): Promise<void>;
  /** The open windows among `keys` (undefined where none is open). */
  readWindows(keys: string[]): Promise<(WindowState | undefined)[]>;
  /** True when `holder` holds (or now renews) lease `name` for `ttlMs`. */
  acquireLease(name: string, holder: string, ttlMs: number): Promise<boolean>;
  /** Lets go of lease `name` if `holder` holds it. */
  releaseLease(name: string, holder: string): Promise<void>;

  // The response cache's store: a size-bounded set of string values with a TTL each.
  /**
   * Keeps `value` under `key` in the bounded store `store` for `ttlSeconds`; while the
   * store's values add up to more than `maxBytes`, the entries nearest their expiry go first.
   * Losing these on a restart is harmless (the next request asks the upstream again).
   */
  putBounded(store: string, key: string, value: string, ttlSeconds: number, maxBytes: number): Promise<void>;
  /** A value kept by putBounded and not yet expired or evicted. */
  getBounded(store: string, key: string): Promise<string | undefined>;
}
