"use server";

import { revalidatePath } from "next/cache";
import { requireAdmin } from "@/lib/console/require-session";
import { writeSetting } from "@/lib/console/settings";
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
