import { type AuditChanges, REDACTED, recordAudit } from "@/lib/audit/audit-log";
import { claimSetupCode, removeSetupCodeFile } from "@/lib/auth/setup-code";
import { env } from "@/lib/env";
import type { Runtime } from "@/lib/runtime";
import { createUser, newUserSchema } from "./users";

export interface FirstAdminForm {
  email: string;
  password: string;
  confirm: string;
  /** The one-time setup code from the start-up output or DATA_DIR/setup-code. */
  code: string;
}

/**
 * Creates the first admin for whoever holds the setup code. The form is checked before
 * the code is spent, so a typo in the password does not use it up; if creating the
 * account fails after all, the code is put back.
 */
export async function createFirstAdmin(runtime: Runtime, form: FirstAdminForm, address: string, dataDir = env.DATA_DIR): Promise<{ error: string | null }> {
  if (form.password !== form.confirm) return { error: "The passwords do not match." };
  const parsed = newUserSchema.safeParse({ email: form.email, password: form.password, role: "admin", name: "Admin" });
  if (!parsed.success) return { error: parsed.error.issues[0]?.message ?? "Invalid input" };
  const keys = { encryptionKeys: [runtime.secrets.encryptionKey, ...runtime.secrets.previousEncryptionKeys] };
  const claim = await claimSetupCode({ database: runtime.database, shared: runtime.shared, keys }, form.code, address);
  if (!claim.ok) return { error: claim.error };
  // The code was only good while no account existed; one may have appeared meanwhile.
  if ((await runtime.database.user.count()) > 0) return { error: "The first admin account already exists: sign in instead." };
  const result = await createUser(runtime, parsed.data);
  if (!result.ok) {
    await claim.restore();
    return { error: result.error };
  }
  removeSetupCodeFile(dataDir);
  const actor = { kind: "user" as const, id: result.id, email: parsed.data.email };
  const changes = { email: [null, parsed.data.email], role: [null, "admin"], password: [null, REDACTED] } satisfies AuditChanges;
  await recordAudit(runtime.database, { actor, action: "user.create", target: { kind: "user", id: result.id, name: parsed.data.email }, changes, ip: address });
  return { error: null };
}
