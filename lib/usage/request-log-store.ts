import type { RequestLogEntry } from "./request-log-entry";
import type { UsageHourRow } from "./usage-hours";

export interface TokenUsage {
  tokens: number;
  usd: number;
  lastUsedAt: Date;
}

/** Whose spending the log's rollups count directly: a token, or a user's own console sessions. */
export type LoggedSubject = { kind: "token"; id: string } | { kind: "user"; id: string };
/**
 * Whose spending a quota counts: a logged subject, a team or one member's share of it
 * (`<teamId>:<userId>`: the sums of their team tokens), or an end user of a token or team.
 */
export type QuotaSubject =
  | LoggedSubject
  | { kind: "team"; id: string }
  | { kind: "member"; id: string }
  | {
      kind: "end-user";
      id: string;
      /** The end user as the client named them (the id is a hash of it). */
      label?: string;
    };

export interface Usage {
  tokens: number;
  usd: number;
  requests: number;
}

/**
 * What usage can be grouped by: `day` a UTC date, `hour` an hour's start; the rest ids, the
 * model's public name, or the end user as the app named them (only requests that named one).
 */
export const USAGE_DIMENSIONS = ["day", "hour", "token", "user", "model", "channel", "end_user"] as const;
export type UsageDimension = (typeof USAGE_DIMENSIONS)[number];

/** A read of the hourly rollups: whole hours from `from` (rounded down) to `to` (exclusive, rounded up; none: now). */
export interface UsageQuery {
  from: Date;
  to?: Date;
  groupBy: readonly UsageDimension[];
  tokenIds?: readonly string[];
  userId?: string;
  channelId?: string;
  models?: readonly string[];
  /** One end user's requests (reads the end users' rollups, as grouping by `end_user` does). */
  endUser?: string;
  /** Adds the latency and time-to-first-token histograms (bounds in LATENCY_BOUNDS_MS). */
  histograms?: boolean;
}

export interface UsageTotals {
  requests: number;
  /** Requests that count against limits (a channel took them or the cache answered). */
  charged: number;
  /** Status 400 or above. */
  errors: number;
  /** Errors and answers cut short: what the dashboards call failed. */
  failed: number;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  reasoningTokens: number;
  costUsd: number;
  cacheHits: number;
  cacheSavedUsd: number;
  latencyMsSum: number;
  firstTokenCount: number;
  firstTokenMsSum: number;
  latency?: number[];
  firstToken?: number[];
}

/** One group: its keys ("" ids read as null) and its totals. */
export type UsageGroup = UsageTotals & {
  day?: string;
  hour?: string;
  token?: string | null;
  user?: string | null;
  model?: string | null;
  channel?: string | null;
  end_user?: string | null;
};

/** One write: the log rows (none when REQUEST_LOG=off), their hourly totals, and each token's usage. */
export interface LogBatch {
  rows: RequestLogEntry[];
  hours: UsageHourRow[];
  /** The hourly totals of the rows that name an end user, per end user. */
  endUserHours: UsageHourRow[];
  usage: Map<string, TokenUsage>;
}

/**
 * Where log rows go and the usage read back from them. One implementation per database; all
 * raw SQL lives in these stores (lib/db/).
 */
export interface RequestLogStore {
  /** Inserts the rows, adds their hours to the rollups and the usage to each token, atomically. */
  writeBatch(batch: LogBatch): Promise<void>;
  /**
   * Tokens, cost and requests (charged ones) of a subject since a moment (the start of its
   * quota period or window: an hour's start), optionally on some models only, from the rollups.
   */
  usageSince(subject: LoggedSubject, since: Date, models?: readonly string[] | null): Promise<Usage>;
  /** The rollups summed per group, ordered by the group's keys. */
  usage(query: UsageQuery): Promise<UsageGroup[]>;
  /**
   * Rolls up rows that were in the log before the rollups existed, up to `limit` of them
   * per call (a transaction that also moves the backfill's mark); false once none are left.
   */
  backfillHours(limit: number): Promise<boolean>;
  /** Retention: deletes up to `limit` rows older than `before`; returns how many (fewer than `limit`: done). */
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
  "mcpServer",
  "mcpTool",
  "endUser",
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
    entry.mcpServer ?? null,
    entry.mcpTool ?? null,
    entry.endUser ?? null,
  ];
}
