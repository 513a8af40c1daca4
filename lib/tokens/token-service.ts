import { z } from "zod";
import { digestTokenKey, displayPrefix, generateTokenKey } from "@/lib/auth/token-key";
import { GatewayError } from "@/lib/canonical/gateway-error";
import type { Token as TokenRow } from "@/lib/db/generated/client";
import { compileWindows, limitWindowsSchema } from "@/lib/limits/limit-windows";
import type { QuotaPeriod } from "@/lib/limits/quota-period";
import { mcpGrantsSchema, readGrants } from "./mcp-grants";
import type { Runtime } from "@/lib/runtime";

// Token management shared by the admin API and the console's server actions.

/** A week: answers older than that are rarely the "same request" a cache is for. */
export const MAX_CACHE_TTL_SECONDS = 7 * 24 * 3600;

const tokenFields = {
  name: z.string().trim().min(1).max(100),
  models: z.array(z.string().trim().min(1).max(200)).max(1000).optional(),
  expiresAt: z.iso.datetime({ offset: true }).nullable().optional(),
  quotaTokens: z.number().int().min(0).nullable().optional(),
  rpm: z.number().int().min(1).max(1_000_000).nullable().optional(),
  tpm: z.number().int().min(1).max(1_000_000_000).nullable().optional(),
  budgetUsd: z.number().min(0).max(1_000_000_000).nullable().optional(),
  quotaPeriod: z.enum(["none", "daily", "weekly", "monthly"]).optional(),
  /** Limit windows, all applied at once: [{window: "5h" | "day" | ..., tokens?, usd?, requests?, models?}]. */
  limits: limitWindowsSchema.optional(),
  userId: z.string().min(1).nullable().optional(),
  /** The longest a request may ask the response cache to keep its answer; null or absent: no caching. */
  cacheTtlSeconds: z.number().int().min(1).max(MAX_CACHE_TTL_SECONDS).nullable().optional(),
  /** The team the token belongs to; its creator (`userId`) must be a member. */
  teamId: z.string().min(1).nullable().optional(),
  /** Windows every distinct end user of the token gets (body user, safety_identifier, metadata.user_id, x-end-user-id). */
  endUserLimits: limitWindowsSchema.optional(),
  /** MCP grants (issue 35): [{server, tools?}]; absent tools means every tool of that server. */
  mcp: mcpGrantsSchema.optional(),
};
export const createTokenSchema = z.strictObject(tokenFields);
export const updateTokenSchema = z.strictObject({ ...tokenFields, enabled: z.boolean() }).partial();
export type CreateTokenInput = z.infer<typeof createTokenSchema>;
export type UpdateTokenInput = z.infer<typeof updateTokenSchema>;

export type TokenJson = ReturnType<typeof tokenJson>;

export function tokenJson(row: TokenRow) {
  return {
    id: row.id,
    name: row.name,
    keyPrefix: row.keyPrefix,
    userId: row.userId,
    enabled: row.enabled,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    models: Array.isArray(row.models) ? (row.models as string[]) : [],
    quotaTokens: row.quotaTokens === null ? null : Number(row.quotaTokens),
    usedTokens: Number(row.usedTokens),
    rpm: row.rpm,
    tpm: row.tpm,
    budgetUsd: row.budgetUsd,
    usedUsd: row.usedUsd,
    quotaPeriod: row.quotaPeriod,
    limits: limitWindowsSchema.safeParse(row.limits).data ?? [],
    cacheTtlSeconds: row.cacheTtlSeconds,
    teamId: row.teamId,
    endUserLimits: limitWindowsSchema.safeParse(row.endUserLimits).data ?? [],
    mcp: readGrants(row.mcp),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

const toDate = (value: string | null | undefined) => (value === undefined ? undefined : value === null ? null : new Date(value));

/** The scope of a caller: everything (admin) or one user's own tokens. */
export type TokenScope = { kind: "all" } | { kind: "user"; userId: string };

function whereFor(scope: TokenScope) {
  return scope.kind === "all" ? {} : { userId: scope.userId };
}

export async function listTokens(runtime: Runtime, scope: TokenScope): Promise<TokenJson[]> {
  const rows = await runtime.database.token.findMany({ where: whereFor(scope), orderBy: { createdAt: "desc" } });
  return rows.map(tokenJson);
}

export async function findToken(runtime: Runtime, scope: TokenScope, id: string): Promise<TokenRow> {
  const row = await runtime.database.token.findFirst({ where: { id, ...whereFor(scope) } });
  if (!row) throw new GatewayError("not_found", "No token with that id.", { code: "token_not_found" });
  return row;
}

/** A team token's creator must be one of the team's members. */
async function checkTeamMember(runtime: Runtime, teamId: string, userId: string | null): Promise<void> {
  if (!(await runtime.database.team.findUnique({ where: { id: teamId }, select: { id: true } }))) {
    throw new GatewayError("invalid_request", "No team with that id.", { code: "team_not_found", param: "teamId" });
  }
  const member = userId ? await runtime.database.teamMember.findUnique({ where: { teamId_userId: { teamId, userId } }, select: { role: true } }) : null;
  if (!member) {
    throw new GatewayError("invalid_request", "A team token is created by one of the team's members: set userId to a member of the team.", {
      code: "not_a_team_member",
      param: "userId",
    });
  }
}

/** Creates a token; the returned key is the only time it is ever shown. */
export async function createToken(runtime: Runtime, input: CreateTokenInput, ownerId: string | null): Promise<TokenJson & { key: string }> {
  if (input.teamId) await checkTeamMember(runtime, input.teamId, input.userId ?? ownerId);
  const key = generateTokenKey();
  const row = await runtime.database.token.create({
    data: {
      name: input.name,
      ...digestTokenKey(key, runtime.secrets.tokenHashKey),
      keyPrefix: displayPrefix(key),
      userId: input.userId ?? ownerId,
      models: input.models ?? [],
      expiresAt: toDate(input.expiresAt) ?? null,
      quotaTokens: input.quotaTokens == null ? null : BigInt(input.quotaTokens),
      rpm: input.rpm ?? null,
      tpm: input.tpm ?? null,
      budgetUsd: input.budgetUsd ?? null,
      quotaPeriod: input.quotaPeriod ?? "none",
      limits: input.limits ?? [],
      cacheTtlSeconds: input.cacheTtlSeconds ?? null,
      teamId: input.teamId ?? null,
      endUserLimits: input.endUserLimits ?? [],
      mcp: input.mcp ?? [],
    },
  });
  await runtime.invalidate("tokens");
  return { ...tokenJson(row), key };
}

export async function updateToken(runtime: Runtime, scope: TokenScope, id: string, input: UpdateTokenInput): Promise<TokenJson> {
  const existing = await findToken(runtime, scope, id);
  const teamId = scope.kind === "all" ? input.teamId : undefined;
  if (teamId) await checkTeamMember(runtime, teamId, input.userId === undefined ? existing.userId : input.userId);
  const row = await runtime.database.token.update({
    where: { id: existing.id },
    data: {
      name: input.name,
      enabled: input.enabled,
      models: input.models,
      expiresAt: toDate(input.expiresAt),
      quotaTokens: input.quotaTokens === undefined ? undefined : input.quotaTokens === null ? null : BigInt(input.quotaTokens),
      rpm: input.rpm,
      tpm: input.tpm,
      budgetUsd: input.budgetUsd,
      quotaPeriod: input.quotaPeriod,
      limits: input.limits,
      cacheTtlSeconds: input.cacheTtlSeconds,
      userId: scope.kind === "all" ? input.userId : undefined,
      teamId,
      endUserLimits: input.endUserLimits,
      mcp: input.mcp,
    },
  });
  runtime.tokens.invalidate();
  await runtime.invalidate("tokens");
  // A changed quota or period starts its counters again from the log.
  for (const period of new Set([existing.quotaPeriod, row.quotaPeriod])) {
    await runtime.limits.forget({ kind: "token", id: row.id }, { quotaPeriod: period as QuotaPeriod });
  }
  return tokenJson(row);
}

/** A token as JSON with each limit window's use and reset time. */
export async function tokenWithWindows(runtime: Runtime, row: TokenRow) {
  const windows = await runtime.limits.windowUsage({ kind: "token", id: row.id }, { windows: compileWindows(row.limits) });
  return { ...tokenJson(row), windows };
}

export async function deleteToken(runtime: Runtime, scope: TokenScope, id: string): Promise<void> {
  const existing = await findToken(runtime, scope, id);
  await runtime.database.token.delete({ where: { id: existing.id } });
  runtime.tokens.invalidate();
  await runtime.invalidate("tokens");
}
