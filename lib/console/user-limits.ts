import { z } from "zod";
import { GatewayError } from "@/lib/canonical/gateway-error";
import { compileWindows, limitWindowsSchema } from "@/lib/limits/limit-windows";
import type { QuotaPeriod } from "@/lib/limits/quota-period";
import type { Runtime } from "@/lib/runtime";

// What a user may spend chatting as themselves in the console (the Playground without a
// token). Admins set them per user; new accounts from open sign-up get the defaults.

export const userLimitsSchema = z.strictObject({
  models: z.array(z.string().trim().min(1).max(200)).max(1000).optional(),
  rpm: z.number().int().min(1).max(1_000_000).nullable().optional(),
  tpm: z.number().int().min(1).max(1_000_000_000).nullable().optional(),
  quotaTokens: z.number().int().min(0).nullable().optional(),
  budgetUsd: z.number().min(0).max(1_000_000_000).nullable().optional(),
  quotaPeriod: z.enum(["none", "daily", "weekly", "monthly"]).optional(),
  /** Limit windows, all applied at once, as on tokens. */
  limits: limitWindowsSchema.optional(),
});
export type UserLimits = z.infer<typeof userLimitsSchema>;

/** Open sign-up never means unlimited spend: new non-admin accounts start with these. */
export const DEFAULT_NEW_USER_LIMITS = { rpm: 20, quotaTokens: 200_000, quotaPeriod: "daily" } satisfies UserLimits;

export function userLimitsData(limits: UserLimits) {
  return {
    models: limits.models,
    rpm: limits.rpm,
    tpm: limits.tpm,
    quotaTokens: limits.quotaTokens === undefined ? undefined : limits.quotaTokens === null ? null : BigInt(limits.quotaTokens),
    budgetUsd: limits.budgetUsd,
    quotaPeriod: limits.quotaPeriod,
    limits: limits.limits,
  };
}

export async function listUsers(runtime: Runtime) {
  const rows = await runtime.database.user.findMany({ orderBy: { createdAt: "asc" } });
  return rows.map(userJson);
}

export async function updateUserLimits(runtime: Runtime, id: string, input: UserLimits) {
  const existing = await runtime.database.user.findUnique({ where: { id } });
  if (!existing) throw new GatewayError("not_found", "No user with that id.", { code: "user_not_found" });
  const row = await runtime.database.user.update({ where: { id }, data: userLimitsData(input) });
  await runtime.invalidate("tokens");
  for (const period of new Set([existing.quotaPeriod, row.quotaPeriod])) {
    await runtime.limits.forget({ kind: "user", id }, { quotaPeriod: period as QuotaPeriod });
  }
  return userJson(row);
}

/** A user with each limit window's use (their own console sessions) and reset time. */
export async function userWithWindows(runtime: Runtime, id: string) {
  const row = await runtime.database.user.findUnique({ where: { id } });
  if (!row) throw new GatewayError("not_found", "No user with that id.", { code: "user_not_found" });
  const windows = await runtime.limits.windowUsage({ kind: "user", id }, { windows: compileWindows(row.limits) });
  return { ...userJson(row), windows };
}

function userJson(row: Awaited<ReturnType<Runtime["database"]["user"]["findUniqueOrThrow"]>>) {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    disabled: row.disabled,
    models: Array.isArray(row.models) ? (row.models as string[]) : [],
    rpm: row.rpm,
    tpm: row.tpm,
    quotaTokens: row.quotaTokens === null ? null : Number(row.quotaTokens),
    budgetUsd: row.budgetUsd,
    quotaPeriod: row.quotaPeriod,
    limits: limitWindowsSchema.safeParse(row.limits).data ?? [],
    createdAt: row.createdAt.toISOString(),
  };
}
