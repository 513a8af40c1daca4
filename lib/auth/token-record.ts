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

/** One set of limits a request is held to, and whose counters it uses. */
export interface Payer {
  subject: QuotaSubject;
  limits: Limits;
}

/** Windows every distinct end user gets, counted under `scope` (a token's, or a team's across its tokens). */
export interface EndUserWindows {
  scope: string;
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
  /**
   * Every set of limits a request on this token is held to: the token's own, then its
   * owner's when the owner has any (a user's limits bind every token they own, so a token
   * can only be tighter than its owner).
   */
  payers: readonly Payer[];
  /** The team the token belongs to (its windows and the creator's member caps are among the payers). */
  teamId?: string | null;
  /** End-user windows: the token's own, then its team's. */
  endUserWindows?: readonly EndUserWindows[];
}

/** A team token's team, and its creator's membership (null once they left: the token stops working). */
export interface TokenTeam {
  id: string;
  models: unknown;
  limits: unknown;
  endUserLimits: unknown;
  member: { limits: unknown } | null;
}

const PERIODS = new Set(["none", "daily", "weekly", "monthly"]);

function modelSet(value: unknown): ReadonlySet<string> | null {
  const models = Array.isArray(value) ? value.filter((model): model is string => typeof model === "string") : [];
  return models.length > 0 ? new Set(models) : null;
}

type LimitColumns = Pick<TokenRow, "models" | "rpm" | "tpm" | "quotaTokens" | "budgetUsd" | "quotaPeriod" | "limits">;
/** The user columns a token's owner is read with. */
export const OWNER_LIMIT_COLUMNS = { models: true, rpm: true, tpm: true, quotaTokens: true, budgetUsd: true, quotaPeriod: true, limits: true } as const;

function limitsOf(row: LimitColumns): Limits {
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

function hasLimits(limits: Limits): boolean {
  return limits.models !== null || limits.rpm !== null || limits.tpm !== null || limits.quotaTokens !== null || limits.budgetUsd !== null || limits.windows.length > 0;
}

/** Models both allow: a token cannot widen its owner's list. */
function bothAllow(token: ReadonlySet<string> | null, owner: ReadonlySet<string> | null): ReadonlySet<string> | null {
  if (owner === null) return token;
  if (token === null) return owner;
  return new Set([...token].filter((model) => owner.has(model)));
}

/** Limits that are windows only: a team's, a member's, an end user's. */
export function windowsOnly(windows: readonly CompiledWindow[], models: ReadonlySet<string> | null = null): Limits {
  return { models, rpm: null, tpm: null, quotaTokens: null, budgetUsd: null, quotaPeriod: "none", windows };
}

/** A token row, with its owner's limit columns when it has an owner, and its team when it has one. */
export function toTokenRecord(row: TokenRow, owner?: LimitColumns | null, team?: TokenTeam | null): TokenRecord {
  const own = limitsOf(row);
  const subject: QuotaSubject = { kind: "token", id: row.id };
  const ownerLimits = owner && row.userId ? limitsOf(owner) : null;
  const payers: Payer[] = [{ subject, limits: own }];
  if (ownerLimits && hasLimits(ownerLimits)) payers.push({ subject: { kind: "user", id: row.userId! }, limits: ownerLimits });
  const endUserWindows: EndUserWindows[] = [];
  const ownEndUser = compileWindows(row.endUserLimits);
  if (ownEndUser.length > 0) endUserWindows.push({ scope: `token:${row.id}`, windows: ownEndUser });
  let teamModels: ReadonlySet<string> | null = null;
  // A team token whose team or creator's membership is gone does not work (its row says so too).
  const teamActive = !row.teamId || (team?.id === row.teamId && team.member !== null && row.userId !== null);
  if (row.teamId && team && teamActive) {
    teamModels = modelSet(team.models);
    const teamWindows = compileWindows(team.limits);
    if (teamWindows.length > 0) payers.push({ subject: { kind: "team", id: team.id }, limits: windowsOnly(teamWindows) });
    const memberWindows = compileWindows(team.member?.limits);
    if (memberWindows.length > 0) payers.push({ subject: { kind: "member", id: `${team.id}:${row.userId}` }, limits: windowsOnly(memberWindows) });
    const teamEndUser = compileWindows(team.endUserLimits);
    if (teamEndUser.length > 0) endUserWindows.push({ scope: `team:${team.id}`, windows: teamEndUser });
  }
  return {
    ...own,
    models: bothAllow(bothAllow(own.models, ownerLimits?.models ?? null), teamModels),
    payers,
    teamId: row.teamId,
    endUserWindows,
    id: row.id,
    name: row.name,
    userId: row.userId,
    enabled: row.enabled && teamActive,
    expiresAt: row.expiresAt ? row.expiresAt.getTime() : null,
    usedTokens: Number(row.usedTokens),
    cacheTtlSeconds: row.cacheTtlSeconds,
    subject,
  };
}

/** The signed-in user chatting as themselves: the limits an admin set on their account. */
export function toSessionTokenRecord(row: UserRow): TokenRecord {
  const limits = limitsOf(row);
  return {
    ...limits,
    payers: [{ subject: { kind: "user", id: row.id }, limits }],
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
