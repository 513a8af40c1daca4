import { LRUCache } from "lru-cache";
import type { Database } from "@/lib/db/client";
import { toSessionTokenRecord, toTokenRecord, type TokenRecord } from "./token-record";

type Entry = { record: TokenRecord | null };

/**
 * Token lookups by key hash, kept for `ttlMs` (default 1 s) so API requests cost no
 * database round trip; concurrent misses share one query. Unknown keys are cached
 * too, so a flood of bad keys cannot hammer the database. Admin changes in this
 * process clear it at once; other instances see them within the TTL.
 */
export class TokenCache {
  private readonly cache: LRUCache<string, Entry>;
  private readonly byId = new Map<string, TokenRecord>();
  /** Console sessions' limits, by user id. */
  private readonly sessions: LRUCache<string, Entry>;

  constructor(
    private readonly database: Database,
    ttlMs: number,
  ) {
    this.cache = new LRUCache<string, Entry>({
      max: 50_000,
      ttl: Math.max(ttlMs, 1),
      fetchMethod: async (keyHash) => {
        const row = await database.token.findUnique({ where: { keyHash } });
        const record = row ? toTokenRecord(row) : null;
        if (record) this.byId.set(record.id, record);
        return { record };
      },
      dispose: (entry) => {
        if (entry.record && this.byId.get(entry.record.id) === entry.record) this.byId.delete(entry.record.id);
      },
    });
    this.sessions = new LRUCache<string, Entry>({
      max: 10_000,
      ttl: Math.max(ttlMs, 1),
      fetchMethod: async (userId) => {
        const row = await database.user.findUnique({ where: { id: userId } });
        return { record: row ? toSessionTokenRecord(row) : null };
      },
    });
  }

  /** The stand-in token for a user chatting as themselves, with their own limits; null once deleted. */
  async forSession(userId: string): Promise<TokenRecord | null> {
    return (await fetchThroughInvalidation(this.sessions, userId))?.record ?? null;
  }

  async get(keyHash: string): Promise<TokenRecord | null> {
    return (await fetchThroughInvalidation(this.cache, keyHash))?.record ?? null;
  }

  /** By id, from the database: for the console, not the API hot path. */
  async getById(id: string): Promise<TokenRecord | null> {
    const row = await this.database.token.findUnique({ where: { id } });
    return row ? toTokenRecord(row) : null;
  }

  /** Adds usage that just reached the database to the cached total. */
  addUsage(tokenId: string, tokens: number): void {
    const record = this.byId.get(tokenId);
    if (record) record.usedTokens += tokens;
  }

  invalidate(): void {
    this.cache.clear();
    this.byId.clear();
    this.sessions.clear();
  }
}

/**
 * A lookup that survives an invalidation arriving mid-fetch: clearing the cache aborts
 * the fetches in flight (lru-cache rejects them), and another process's change can
 * arrive at any moment, so the lookup simply runs again.
 */
async function fetchThroughInvalidation(cache: LRUCache<string, Entry>, key: string): Promise<Entry | undefined> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await cache.fetch(key);
    } catch (error) {
      const aborted = (error as { name?: string; message?: string }).name === "AbortError" || (error as Error).message === "deleted";
      if (!aborted || attempt >= 3) throw error;
    }
  }
}
