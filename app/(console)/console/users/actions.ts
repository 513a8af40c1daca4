"use server";

import { revalidatePath } from "next/cache";
import { toGatewayError } from "@/lib/canonical/gateway-error";
import { requireAdmin } from "@/lib/console/require-session";
import { deleteUserAccount, updateUserAccount, userUpdateSchema } from "@/lib/console/user-accounts";
import { readSettings, writeSetting } from "@/lib/console/settings";
import { updateUserLimits, userLimitsSchema, userWithWindows } from "@/lib/console/user-limits";
import { diffChanges } from "@/lib/audit/audit-log";
import { consoleAudit } from "@/lib/console/console-audit";
import { createUser } from "@/lib/console/users";
import { getRuntime } from "@/lib/runtime";

export type UserFormState = { error: string | null; created: string | null };

export async function createUserAction(_state: UserFormState, form: FormData): Promise<UserFormState> {
  const admin = await requireAdmin();
  const email = String(form.get("email") ?? "");
  const runtime = await getRuntime();
  const input = {
    email,
    password: String(form.get("password") ?? ""),
    name: String(form.get("name") ?? "") || undefined,
    role: form.get("role") === "admin" ? ("admin" as const) : ("user" as const),
  };
  const result = await createUser(runtime, input);
  if (!result.ok) return { error: result.error, created: null };
  const { windows: _windows, ...account } = await userWithWindows(runtime, result.id);
  await consoleAudit(admin, "user.create", { kind: "user", id: result.id, name: email }, diffChanges(null, account, input));
  revalidatePath("/console/users");
  return { error: null, created: email };
}

export async function setOpenSignupAction(enabled: boolean): Promise<void> {
  const admin = await requireAdmin();
  const runtime = await getRuntime();
  const before = (await readSettings(runtime)).openSignup;
  await writeSetting(runtime, "openSignup", enabled);
  await consoleAudit(
    admin,
    "setting.update",
    { kind: "setting", id: "openSignup", name: "Open sign-up" },
    diffChanges({ openSignup: before }, { openSignup: enabled }, { openSignup: enabled }),
  );
  revalidatePath("/console/users");
}

export type LimitsFormState = { error: string | null; saved: boolean };

const parseJson = (value: FormDataEntryValue | null): unknown => {
  try {
    return JSON.parse(String(value ?? "[]"));
  } catch {
    return undefined; // the schema then names the field
  }
};
const optionalNumber = (value: FormDataEntryValue | null) => (value === null || String(value).trim() === "" ? null : Number(value));

/** The limits of a user's own console sessions (the Playground without a token). */
export async function updateUserLimitsAction(userId: string, _state: LimitsFormState, form: FormData): Promise<LimitsFormState> {
  const admin = await requireAdmin();
  const parsed = userLimitsSchema.safeParse({
    rpm: optionalNumber(form.get("rpm")),
    quotaTokens: optionalNumber(form.get("quotaTokens")),
    budgetUsd: optionalNumber(form.get("budgetUsd")),
    quotaPeriod: String(form.get("quotaPeriod") ?? "none"),
    limits: parseJson(form.get("limits")),
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { error: `${issue?.path.join(".") ?? "limits"}: ${issue?.message ?? "invalid"}`, saved: false };
  }
  const runtime = await getRuntime();
  const before = await userWithWindows(runtime, userId);
  const updated = await updateUserLimits(runtime, userId, parsed.data);
  await consoleAudit(admin, "user.update", { kind: "user", id: userId, name: before.email }, diffChanges(before, updated, parsed.data));
  revalidatePath("/console/users");
  return { error: null, saved: true };
}

export type AccountActionResult = { ok: true } | { ok: false; error: string };

/** Role, standing or sign-out for one account; takes effect on its open sessions at once. */
export async function updateAccountAction(userId: string, change: { role?: "admin" | "user"; disabled?: boolean; signOutEverywhere?: true }): Promise<AccountActionResult> {
  const admin = await requireAdmin();
  const parsed = userUpdateSchema.pick({ role: true, disabled: true, signOutEverywhere: true }).safeParse(change);
  if (!parsed.success) return { ok: false, error: parsed.error.issues[0]?.message ?? "Invalid change" };
  try {
    const runtime = await getRuntime();
    const before = await userWithWindows(runtime, userId);
    const updated = await updateUserAccount(runtime, userId, parsed.data, admin.userId);
    await consoleAudit(admin, "user.update", { kind: "user", id: userId, name: before.email }, diffChanges(before, updated, parsed.data));
  } catch (error) {
    return { ok: false, error: toGatewayError(error).message };
  }
  revalidatePath("/console/users");
  return { ok: true };
}

export async function deleteAccountAction(userId: string): Promise<AccountActionResult> {
  const admin = await requireAdmin();
  try {
    const runtime = await getRuntime();
    const { windows: _windows, ...before } = await userWithWindows(runtime, userId);
    await deleteUserAccount(runtime, userId, admin.userId);
    await consoleAudit(admin, "user.delete", { kind: "user", id: userId, name: before.email }, diffChanges(before, null));
  } catch (error) {
    return { ok: false, error: toGatewayError(error).message };
  }
  revalidatePath("/console/users");
  return { ok: true };
}
