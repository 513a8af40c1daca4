import { LRUCache } from "lru-cache";
import type { Database } from "@/lib/db/client";
import { toTokenRecord, type TokenRecord } from "./token-record";

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
  }

  async get(keyHash: string): Promise<TokenRecord | null> {
    const entry = await this.cache.fetch(keyHash);
    return entry?.record ?? null;
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
  }
}
