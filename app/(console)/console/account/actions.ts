"use server";

import { toGatewayError } from "@/lib/canonical/gateway-error";
import { REDACTED } from "@/lib/audit/audit-log";
import { consoleAudit } from "@/lib/console/console-audit";
import { requireUser } from "@/lib/console/require-session";
import { changeOwnPassword, passwordChangeSchema } from "@/lib/console/user-accounts";
import { getRuntime } from "@/lib/runtime";

export type PasswordResult = { ok: true; email: string } | { ok: false; error: string };

export async function changePasswordAction(input: unknown): Promise<PasswordResult> {
  const user = await requireUser();
  const parsed = passwordChangeSchema.safeParse(input);
  if (!parsed.success) return { ok: false, error: parsed.error.issues[0]?.message ?? "Invalid input" };
  try {
    await changeOwnPassword(await getRuntime(), user.userId, parsed.data);
    await consoleAudit(user, "user.update", { kind: "user", id: user.userId, name: user.email }, { password: [REDACTED, REDACTED] });
    return { ok: true, email: user.email };
  } catch (error) {
    return { ok: false, error: toGatewayError(error).message };
  }
}
