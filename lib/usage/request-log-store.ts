import type { RequestLogEntry } from "./request-log-entry";

export interface TokenUsage {
  tokens: number;
  usd: number;
  lastUsedAt: Date;
}

/** Whose spending a quota counts: a token, or a user's own console sessions. */
export type QuotaSubject = { kind: "token"; id: string } | { kind: "user"; id: string };

export interface Usage {
  tokens: number;
  usd: number;
  requests: number;
}

export interface HourlyStats {
  /** Hour start, ISO. */
  hour: string;
  requests: number;
  tokens: number;
  errors: number;
  costUsd: number;
  latencyMs: number;
}

/**
 * Where log rows go and the few aggregates read back from them. One implementation per
 * database; all raw SQL lives in these stores.
 */
export interface RequestLogStore {
  /** Inserts the rows and adds the usage to each token, atomically. */
  writeBatch(entries: RequestLogEntry[], usage: Map<string, TokenUsage>): Promise<void>;
  /**
   * Tokens, cost and requests (rows that reached a channel) of a subject since a moment (the
   * start of its quota period or window), optionally on some models only: the rows plus what
   * the retention sweep rolled up of deleted ones (whole UTC days from `since` on).
   */
  usageSince(subject: QuotaSubject, since: Date, models?: readonly string[] | null): Promise<Usage>;
  /** Requests, tokens, errors, cost and summed latency per hour since `since`, optionally for one user. */
  hourlyStats(since: Date, userId: string | null): Promise<HourlyStats[]>;
  /**
   * Retention: rolls up what up to `limit` rows older than `before` spent (UsageRollup) and
   * deletes them, in one transaction; returns how many were deleted (fewer than `limit`: done).
   */
  sweepBefore(before: Date, limit: number): Promise<number>;
  /** How many rows the log holds. */
  countRows(): Promise<number>;
  close(): Promise<void>;
}

export const LOG_COLUMNS = [
  "id",
  "createdAt",
  "endpoint",
  "clientFormat",
  "method",
  "tokenId",
  "userId",
  "channelId",
  "model",
  "upstreamModel",
  "status",
  "stream",
  "promptTokens",
  "completionTokens",
  "cachedTokens",
  "reasoningTokens",
  "usageEstimated",
  "latencyMs",
  "firstTokenMs",
  "costUsd",
  "errorMessage",
  "warnings",
  "attempts",
  "servedModel",
  "sessionHash",
  "cacheStatus",
  "cacheSavedUsd",
] as const;

/** An entry's values in LOG_COLUMNS order; dates, booleans and JSON as each database wants them. */
export function logRowValues(entry: RequestLogEntry, encode: { date: (date: Date) => unknown; boolean: (value: boolean) => unknown }): unknown[] {
  return [
    entry.id,
    encode.date(entry.createdAt),
    entry.endpoint,
    entry.clientFormat,
    entry.method,
    entry.tokenId,
    entry.userId,
    entry.channelId,
    entry.model,
    entry.upstreamModel,
    entry.status,
    encode.boolean(entry.stream),
    entry.promptTokens,
    entry.completionTokens,
    entry.cachedTokens,
    entry.reasoningTokens,
    encode.boolean(entry.usageEstimated),
    entry.latencyMs,
    entry.firstTokenMs,
    entry.costUsd,
    entry.errorMessage,
    entry.warnings ? JSON.stringify(entry.warnings) : null,
    entry.attempts ? JSON.stringify(entry.attempts) : null,
    entry.servedModel ?? null,
    entry.sessionHash ?? null,
    entry.cacheStatus,
    entry.cacheSavedUsd,
  ];
}
