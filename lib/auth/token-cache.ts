import { LRUCache } from "lru-cache";
import type { Database } from "@/lib/db/client";
import { entriesAtMost } from "@/lib/state/lru-entries";
import { digestTokenKey, legacyTokenHash, sameDigest } from "./token-key";
import { OWNER_LIMIT_COLUMNS, toSessionTokenRecord, toTokenRecord, type TokenRecord, type TokenTeam } from "./token-record";

type Entry = { record: TokenRecord | null };

/** What a token is read with: its owner's standing and limits, its team's limits. */
const TOKEN_INCLUDE = {
  user: { select: { disabled: true, ...OWNER_LIMIT_COLUMNS } },
  team: { select: { id: true, models: true, limits: true, endUserLimits: true } },
} as const;
type SessionEntry = Entry & { account: ConsoleAccount | null };

/** What a console session is checked against on every use: role and standing now, not at sign-in. */
export interface ConsoleAccount {
  role: "admin" | "user";
  disabled: boolean;
  sessionVersion: number;
}

/**
 * Token lookups by presented key, kept for `ttlMs` (default 1 s) so API requests cost no
 * database round trip; concurrent misses share one query. Unknown keys are cached
 * too, so a flood of bad keys cannot hammer the database. Admin changes in this
 * process clear it at once; other instances see them within the TTL.
 */
export class TokenCache {
  private readonly cache: LRUCache<string, Entry>;
  private readonly byId = new Map<string, TokenRecord>();
  /** Console sessions' limits, by user id. */
  private readonly sessions: LRUCache<string, SessionEntry>;

  constructor(
    private readonly database: Database,
    ttlMs: number,
    private readonly hashKey: Buffer,
  ) {
    this.cache = new LRUCache<string, Entry>({
      ...entriesAtMost(50_000),
      ttl: Math.max(ttlMs, 1),
      fetchMethod: async (key) => {
        const row = await this.findRow(key);
        const record = row ? toTokenRecord({ ...row, enabled: row.enabled && !row.user?.disabled }, row.user, await this.teamOf(row)) : null;
        if (record) this.byId.set(record.id, record);
        return { record };
      },
      dispose: (entry) => {
        if (entry.record && this.byId.get(entry.record.id) === entry.record) this.byId.delete(entry.record.id);
      },
    });
    this.sessions = new LRUCache<string, SessionEntry>({
      ...entriesAtMost(10_000),
      ttl: Math.max(ttlMs, 1),
      fetchMethod: async (userId) => {
        const row = await database.user.findUnique({ where: { id: userId } });
        if (!row) return { record: null, account: null };
        const account: ConsoleAccount = { role: row.role === "admin" ? "admin" : "user", disabled: row.disabled, sessionVersion: row.sessionVersion };
        return { record: row.disabled ? null : toSessionTokenRecord(row), account };
      },
    });
  }

  /**
   * The row for a presented key: found by its lookup prefix, the keyed hash compared in
   * constant time. A row from before keyed hashes is found by its SHA-256 and upgraded.
   */
  private async findRow(key: string) {
    const digest = digestTokenKey(key, this.hashKey);
    const include = TOKEN_INCLUDE;
    const candidates = await this.database.token.findMany({ where: { lookupKey: digest.lookupKey }, include, take: 16 });
    const match = candidates.find((row) => sameDigest(row.keyHash, digest.keyHash));
    if (match) return match;
    const legacy = await this.database.token.findUnique({ where: { keyHash: legacyTokenHash(key) }, include });
    if (!legacy || legacy.lookupKey !== null) return null;
    await this.database.token.update({ where: { id: legacy.id }, data: { keyHash: digest.keyHash, lookupKey: digest.lookupKey } });
    return legacy;
  }

  /** A team token's team and its creator's membership, read beside the row (null for other tokens). */
  private async teamOf(row: {
    teamId: string | null;
    userId: string | null;
    team?: { id: string; models: unknown; limits: unknown; endUserLimits: unknown } | null;
  }): Promise<TokenTeam | null> {
    if (!row.teamId || !row.team) return null;
    const member = row.userId
      ? await this.database.teamMember.findUnique({ where: { teamId_userId: { teamId: row.teamId, userId: row.userId } }, select: { limits: true } })
      : null;
    return { ...row.team, member };
  }

  /** The standing of a console account (null once deleted), for checking its sessions. */
  async account(userId: string): Promise<ConsoleAccount | null> {
    return (await fetchThroughInvalidation(() => this.sessions.fetch(userId)))?.account ?? null;
  }

  /** The stand-in token for a user chatting as themselves, with their own limits; null once deleted. */
  async forSession(userId: string): Promise<TokenRecord | null> {
    return (await fetchThroughInvalidation(() => this.sessions.fetch(userId)))?.record ?? null;
  }

  /**
   * The token a presented key belongs to, or null. Cached by the key itself (in memory
   * only), so a hit costs no hash; the keyed hash is computed on a miss.
   */
  async get(key: string): Promise<TokenRecord | null> {
    // A fresh entry without fetch()'s promise machinery: the hot path's common case.
    const cached = this.cache.get(key);
    if (cached) return cached.record;
    return (await fetchThroughInvalidation(() => this.cache.fetch(key)))?.record ?? null;
  }

  /** By id, from the database: for the console, not the API hot path. */
  async getById(id: string): Promise<TokenRecord | null> {
    const row = await this.database.token.findUnique({ where: { id }, include: TOKEN_INCLUDE });
    // The same record the API builds: its owner's and its team's limits bind it here too.
    return row ? toTokenRecord({ ...row, enabled: row.enabled && !row.user?.disabled }, row.user, await this.teamOf(row)) : null;
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
async function fetchThroughInvalidation<Value>(fetch: () => Promise<Value | undefined>): Promise<Value | undefined> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await fetch();
    } catch (error) {
      const aborted = (error as { name?: string; message?: string }).name === "AbortError" || (error as Error).message === "deleted";
      if (!aborted || attempt >= 3) throw error;
    }
  }
}
