import { z } from "zod";
import { hashPassword, verifyPassword } from "@/lib/auth/password";
import { GatewayError } from "@/lib/canonical/gateway-error";
import type { Runtime } from "@/lib/runtime";
import { updateUserLimits, userLimitsSchema } from "./user-limits";

// An admin's changes to an account take effect at once, in every process: sessions are
// checked against the account on each use (lib/auth/console-session.ts), so a demotion,
// a disable, a deletion or a new password ends what the old standing allowed.

export const userUpdateSchema = userLimitsSchema.extend({
  role: z.enum(["admin", "user"]).optional(),
  disabled: z.boolean().optional(),
  /** Sets a new password and signs the account out everywhere. */
  password: z.string().min(8).max(200).optional(),
  /** Ends every session of the account without other changes. */
  signOutEverywhere: z.literal(true).optional(),
});
export type UserUpdate = z.infer<typeof userUpdateSchema>;

export async function updateUserAccount(runtime: Runtime, id: string, input: UserUpdate, actingUserId: string | null) {
  const { role, disabled, password, signOutEverywhere, ...limits } = input;
  const existing = await runtime.database.user.findUnique({ where: { id } });
  if (!existing) throw new GatewayError("not_found", "No user with that id.", { code: "user_not_found" });
  if ((role === "user" || disabled === true) && existing.role === "admin") await assertNotLastAdmin(runtime, id, actingUserId);
  // Disabling ends sessions for good: enabling again does not revive them.
  const endSessions = password !== undefined || signOutEverywhere === true || disabled === true;
  await runtime.database.user.update({
    where: { id },
    data: {
      role,
      disabled,
      passwordHash: password === undefined ? undefined : await hashPassword(password),
      sessionVersion: endSessions ? { increment: 1 } : undefined,
    },
  });
  runtime.tokens.invalidate();
  return updateUserLimits(runtime, id, limits);
}

export const passwordChangeSchema = z.object({
  current: z.string().min(1, "Enter your current password."),
  next: z.string().min(8, "The new password needs at least 8 characters.").max(200),
});

/**
 * Anyone's own password, with the current one as proof. Every session of the account
 * ends, this one included: the form signs in again with the new password.
 */
export async function changeOwnPassword(runtime: Runtime, userId: string, input: z.infer<typeof passwordChangeSchema>): Promise<void> {
  const user = await runtime.database.user.findUnique({ where: { id: userId } });
  if (!user?.passwordHash || !(await verifyPassword(input.current, user.passwordHash))) {
    throw new GatewayError("invalid_request", "The current password is not right.", { code: "wrong_password", param: "current" });
  }
  await runtime.database.user.update({
    where: { id: userId },
    data: { passwordHash: await hashPassword(input.next), sessionVersion: { increment: 1 } },
  });
  runtime.tokens.invalidate();
  await runtime.invalidate("tokens");
}

/** Deletes an account and the tokens it owns; its log rows stay, for the record. */
export async function deleteUserAccount(runtime: Runtime, id: string, actingUserId: string | null): Promise<void> {
  const existing = await runtime.database.user.findUnique({ where: { id } });
  if (!existing) throw new GatewayError("not_found", "No user with that id.", { code: "user_not_found" });
  if (existing.role === "admin") await assertNotLastAdmin(runtime, id, actingUserId);
  await runtime.database.$transaction([runtime.database.token.deleteMany({ where: { userId: id } }), runtime.database.user.delete({ where: { id } })]);
  runtime.tokens.invalidate();
  await runtime.invalidate("tokens");
}

async function assertNotLastAdmin(runtime: Runtime, id: string, actingUserId: string | null): Promise<void> {
  const others = await runtime.database.user.count({ where: { role: "admin", disabled: false, id: { not: id } } });
  if (others === 0) {
    throw new GatewayError("invalid_request", "This is the last active admin; promote another account first.", { code: "last_admin" });
  }
  if (id === actingUserId) {
    throw new GatewayError("invalid_request", "You cannot demote, disable or delete your own account; ask another admin.", { code: "own_account" });
  }
}
