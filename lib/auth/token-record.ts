import type { Token as TokenRow } from "@/lib/db/generated/client";

/** A token as the hot path needs it. */
export interface TokenRecord {
  id: string;
  name: string;
  userId: string | null;
  enabled: boolean;
  expiresAt: number | null;
  /** null means every model. */
  models: ReadonlySet<string> | null;
  quotaTokens: number | null;
  usedTokens: number;
  rpm: number | null;
  /** A console session standing in for a token; never written as a token id. */
  synthetic?: boolean;
}

export function toTokenRecord(row: TokenRow): TokenRecord {
  const models = Array.isArray(row.models) ? row.models.filter((model): model is string => typeof model === "string") : [];
  return {
    id: row.id,
    name: row.name,
    userId: row.userId,
    enabled: row.enabled,
    expiresAt: row.expiresAt ? row.expiresAt.getTime() : null,
    models: models.length > 0 ? new Set(models) : null,
    quotaTokens: row.quotaTokens === null ? null : Number(row.quotaTokens),
    usedTokens: Number(row.usedTokens),
    rpm: row.rpm,
  };
}
