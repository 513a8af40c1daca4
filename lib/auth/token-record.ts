import type { Token as TokenRow, User as UserRow } from "@/lib/db/generated/client";
import { compileWindows, type CompiledWindow } from "@/lib/limits/limit-windows";
import type { QuotaPeriod } from "@/lib/limits/quota-period";
import type { QuotaSubject } from "@/lib/usage/request-log-store";

/** What a caller may spend, whether a token or a user's own console session. */
export interface Limits {
  /** null means every model. */
  models: ReadonlySet<string> | null;
  rpm: number | null;
  tpm: number | null;
  quotaTokens: number | null;
  budgetUsd: number | null;
  quotaPeriod: QuotaPeriod;
  /** Limit windows, all applied at once (beside the quota above, one more window). */
  windows: readonly CompiledWindow[];
}

/** A token as the hot path needs it. */
export interface TokenRecord extends Limits {
  id: string;
  name: string;
  userId: string | null;
  enabled: boolean;
  expiresAt: number | null;
  usedTokens: number;
  /** Whose counters the quota and rate limits use. */
  subject: QuotaSubject;
  /** The longest the response cache may keep an answer for this token (null: never cached). */
  cacheTtlSeconds: number | null;
  /** A console session standing in for a token; never written as a token id. */
  synthetic?: boolean;
}

const PERIODS = new Set(["none", "daily", "weekly", "monthly"]);

function modelSet(value: unknown): ReadonlySet<string> | null {
  const models = Array.isArray(value) ? value.filter((model): model is string => typeof model === "string") : [];
  return models.length > 0 ? new Set(models) : null;
}

function limitsOf(row: Pick<TokenRow, "models" | "rpm" | "tpm" | "quotaTokens" | "budgetUsd" | "quotaPeriod" | "limits">): Limits {
  return {
    models: modelSet(row.models),
    rpm: row.rpm,
    tpm: row.tpm,
    quotaTokens: row.quotaTokens === null ? null : Number(row.quotaTokens),
    budgetUsd: row.budgetUsd,
    quotaPeriod: (PERIODS.has(row.quotaPeriod) ? row.quotaPeriod : "none") as QuotaPeriod,
    windows: compileWindows(row.limits),
  };
}

export function toTokenRecord(row: TokenRow): TokenRecord {
  return {
    ...limitsOf(row),
    id: row.id,
    name: row.name,
    userId: row.userId,
    enabled: row.enabled,
    expiresAt: row.expiresAt ? row.expiresAt.getTime() : null,
    usedTokens: Number(row.usedTokens),
    cacheTtlSeconds: row.cacheTtlSeconds,
    subject: { kind: "token", id: row.id },
  };
}

/** The signed-in user chatting as themselves: the limits an admin set on their account. */
export function toSessionTokenRecord(row: UserRow): TokenRecord {
  return {
    ...limitsOf(row),
    id: `session:${row.id}`,
    name: "console session",
    userId: row.id,
    enabled: true,
    expiresAt: null,
    usedTokens: 0,
    // A console session (the Playground) never uses the response cache.
    cacheTtlSeconds: null,
    subject: { kind: "user", id: row.id },
    synthetic: true,
  };
}
