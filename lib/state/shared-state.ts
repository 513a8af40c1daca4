import type { RateLimiterAbstract } from "rate-limiter-flexible";

/** The result of trying to add to a bounded counter. */
export interface CounterResult {
  ok: boolean;
  /** The counter's value after the call (unchanged when refused). */
  value: number;
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
  subscribe(handler: (topic: string, message: unknown) => void): void;
  close(): Promise<void>;

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
