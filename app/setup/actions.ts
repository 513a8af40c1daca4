"use server";

import { redirect } from "next/navigation";
import { createUser, needsSetup } from "@/lib/console/users";
import { getRuntime } from "@/lib/runtime";

export type SetupState = { error: string | null };

/** Creates the first admin. Refused once any account exists. */
export async function createFirstAdmin(form: FormData): Promise<SetupState> {
  const runtime = await getRuntime();
  if (!(await needsSetup(runtime))) redirect("/login");
  const password = String(form.get("password") ?? "");
  if (password !== String(form.get("confirm") ?? "")) return { error: "The passwords do not match." };
  const result = await createUser(runtime, { email: String(form.get("email") ?? ""), password, role: "admin", name: "Admin" });
  if (!result.ok) return { error: result.error };
  // The form signs the new admin in with the same credentials.
  return { error: null };
}
