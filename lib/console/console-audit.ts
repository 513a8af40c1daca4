import { headers } from "next/headers";
import { type AuditChanges, type AuditTarget, recordAudit } from "@/lib/audit/audit-log";
import type { ConsoleSession } from "@/lib/auth/console-session";
import { CLIENT_ADDRESS_HEADER } from "@/lib/http/client-address";
import { getRuntime } from "@/lib/runtime";

/** Writes a change a console user made (a server action) to the audit log, from the address server.ts saw. */
export async function consoleAudit(user: ConsoleSession, action: string, target: AuditTarget, changes: AuditChanges): Promise<void> {
  const ip = (await headers()).get(CLIENT_ADDRESS_HEADER);
  await recordAudit((await getRuntime()).database, { actor: { kind: "user", id: user.userId, email: user.email }, action, target, changes, ip });
}
