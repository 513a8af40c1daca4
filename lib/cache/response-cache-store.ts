import type { Database } from "@/lib/db/client";
import { logger } from "@/lib/logger";
import type { SharedState } from "@/lib/state/shared-state";

/** Where cached answers live: Redis when the processes share one, else the database. */
export interface ResponseCacheStore {
  get(key: string): Promise<string | undefined>;
  put(key: string, value: string, ttlSeconds: number): Promise<void>;
}

const STORE = "response-cache";

/** Redis through the shared state's bounded store (one script: set, account, evict). */
export function sharedStateCacheStore(shared: SharedState, maxBytes: number): ResponseCacheStore {
  return {
    get: (key) => shared.getBounded(STORE, key),
    put: (key, value, ttlSeconds) => shared.putBounded(STORE, key, value, ttlSeconds, maxBytes),
  };
}

/** Rows removed per eviction query, so one store never holds a long lock. */
const EVICTION_BATCH = 500;

/**
 * The database as the store (no Redis): one row per key. Each write first drops expired
 * rows, then, while the rows add up to more than `maxBytes`, those nearest their expiry.
 */
export function databaseCacheStore(database: Database, maxBytes: number, now: () => Date = () => new Date()): ResponseCacheStore {
  let pruning: Promise<void> | undefined;
  async function prune(): Promise<void> {
    await database.responseCacheEntry.deleteMany({ where: { expiresAt: { lte: now() } } });
    let total = (await database.responseCacheEntry.aggregate({ _sum: { bytes: true } }))._sum.bytes ?? 0;
    while (total > maxBytes) {
      const oldest = await database.responseCacheEntry.findMany({ select: { key: true, bytes: true }, orderBy: { expiresAt: "asc" }, take: EVICTION_BATCH });
      if (oldest.length === 0) break;
      const evicted: string[] = [];
      for (const row of oldest) {
        if (total <= maxBytes) break;
        evicted.push(row.key);
        total -= row.bytes;
      }
      await database.responseCacheEntry.deleteMany({ where: { key: { in: evicted } } });
    }
  }
  return {
    async get(key) {
      const row = await database.responseCacheEntry.findUnique({ where: { key } });
      return row && row.expiresAt > now() ? row.value : undefined;
    },
    async put(key, value, ttlSeconds) {
      const bytes = Buffer.byteLength(value);
      if (bytes > maxBytes) return;
      const expiresAt = new Date(now().getTime() + ttlSeconds * 1000);
      await database.responseCacheEntry.upsert({ where: { key }, create: { key, value, bytes, expiresAt }, update: { value, bytes, expiresAt } });
      // One prune at a time per process: concurrent writes share the one running.
      pruning ??= prune()
        .catch((error) => logger.error({ err: error }, "response cache eviction failed"))
        .finally(() => (pruning = undefined));
      await pruning;
    },
  };
}
