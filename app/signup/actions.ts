"use server";

import { readSettings } from "@/lib/console/settings";
import { createUser } from "@/lib/console/users";
import { getRuntime } from "@/lib/runtime";

export type SignupState = { error: string | null };

/** Open sign-up, when the admin turned it on: creates a plain user. */
export async function signUp(form: FormData): Promise<SignupState> {
  const runtime = await getRuntime();
  if (!(await readSettings(runtime)).openSignup) return { error: "Sign-up is closed on this deployment." };
  const result = await createUser(runtime, {
    email: String(form.get("email") ?? ""),
    password: String(form.get("password") ?? ""),
    role: "user",
  });
  if (!result.ok) return { error: result.error };
  // The form signs the new user in with the same credentials.
  return { error: null };
}
