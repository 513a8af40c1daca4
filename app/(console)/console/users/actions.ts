"use server";

import { revalidatePath } from "next/cache";
import { toGatewayError } from "@/lib/canonical/gateway-error";
import { requireAdmin } from "@/lib/console/require-session";
import { deleteUserAccount, updateUserAccount, userUpdateSchema } from "@/lib/console/user-accounts";
import { writeSetting } from "@/lib/console/settings";
import { updateUserLimits, userLimitsSchema } from "@/lib/console/user-limits";
import { createUser } from "@/lib/console/users";
import { getRuntime } from "@/lib/runtime";

export type UserFormState = { error: string | null; created: string | null };

export async function createUserAction(_state: UserFormState, form: FormData): Promise<UserFormState> {
  await requireAdmin();
  const email = String(form.get("email") ?? "");
  const result = await createUser(await getRuntime(), {
    email,
    password: String(form.get("password") ?? ""),
    name: String(form.get("name") ?? "") || undefined,
    role: form.get("role") === "admin" ? "admin" : "user",
  });
  if (!result.ok) return { error: result.error, created: null };
  revalidatePath("/console/users");
  return { error: null, created: email };
}

export async function setOpenSignupAction(enabled: boolean): Promise<void> {
  await requireAdmin();
  await writeSetting(await getRuntime(), "openSignup", enabled);
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
  await requireAdmin();
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
  await updateUserLimits(await getRuntime(), userId, parsed.data);
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
    await updateUserAccount(await getRuntime(), userId, parsed.data, admin.userId);
  } catch (error) {
    return { ok: false, error: toGatewayError(error).message };
  }
  revalidatePath("/console/users");
  return { ok: true };
}

export async function deleteAccountAction(userId: string): Promise<AccountActionResult> {
  const admin = await requireAdmin();
  try {
    await deleteUserAccount(await getRuntime(), userId, admin.userId);
  } catch (error) {
    return { ok: false, error: toGatewayError(error).message };
  }
  revalidatePath("/console/users");
  return { ok: true };
}
