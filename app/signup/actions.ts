"use server";

import { headers } from "next/headers";
import { type AuditChanges, REDACTED, recordAudit } from "@/lib/audit/audit-log";
import { readSettings } from "@/lib/console/settings";
import { CLIENT_ADDRESS_HEADER } from "@/lib/http/client-address";
import { createUser } from "@/lib/console/users";
import { getRuntime } from "@/lib/runtime";

export type SignupState = { error: string | null };

/** Open sign-up, when the admin turned it on: creates a plain user. */
export async function signUp(form: FormData): Promise<SignupState> {
  const runtime = await getRuntime();
  if (!(await readSettings(runtime)).openSignup) return { error: "Sign-up is closed on this deployment." };
  const email = String(form.get("email") ?? "");
  const result = await createUser(runtime, { email, password: String(form.get("password") ?? ""), role: "user" });
  if (!result.ok) return { error: result.error };
  const changes = { email: [null, email.trim().toLowerCase()], role: [null, "user"], password: [null, REDACTED] } satisfies AuditChanges;
  const ip = (await headers()).get(CLIENT_ADDRESS_HEADER);
  await recordAudit(runtime.database, { actor: { kind: "user", id: result.id, email }, action: "user.sign_up", target: { kind: "user", id: result.id, name: email }, changes, ip });
  // The form signs the new user in with the same credentials.
  return { error: null };
}
