import { assertNotThrottled, recordFailure, recordSuccess } from "@/lib/console/login-throttle";
import { recordAudit } from "@/lib/audit/audit-log";
import type { Database } from "@/lib/db/client";
import type { SharedState } from "@/lib/state/shared-state";
import { standInPasswordHash, verifyPassword } from "@/lib/auth/password";

export interface PasswordSignInServices {
  database: Database;
  shared: SharedState;
  /** This deployment's id: one Redis may serve several deployments, each counting its own failures. */
  deploymentId: string;
  /** Checks a typed password against a stored hash; lib/auth/password.ts's unless given. */
  verifyPassword?: (password: string, stored: string) => Promise<boolean>;
}

export interface SignedInUser {
  id: string;
  email: string;
  name: string | null;
  sessionVersion: number;
}

/**
 * The console's email and password sign-in: the account, or null when refused. Throws a
 * SignInThrottledError (its message readable) while this email or address is paused.
 */
export async function signInWithPassword(services: PasswordSignInServices, credentials: { email: string; password: string }, address: string): Promise<SignedInUser | null> {
  const verify = services.verifyPassword ?? verifyPassword;
  const email = credentials.email.trim().toLowerCase();
  // The counters are this deployment's: another's failures for the same email never pause it.
  const account = `${services.deploymentId}|${email}`;
  const from = `${services.deploymentId}|${address}`;
  const audit = (action: string, user: { id: string } | null, reason?: string) =>
    recordAudit(services.database, {
      actor: { kind: "user", id: user?.id ?? "unknown", email },
      action,
      target: { kind: "user", id: user?.id ?? "unknown", name: email },
      changes: reason ? { reason: [null, reason] } : {},
      ip: address,
    });
  try {
    await assertNotThrottled(services.shared, account, from);
  } catch (error) {
    await audit("auth.sign_in_failed", null, "too many attempts: paused");
    throw error;
  }
  const user = await services.database.user.findUnique({ where: { email } });
  // Every refusal does the one scrypt check a right password does, or the time taken
  // would tell which emails have an account (a stand-in hash when there is none to check).
  const matches = await verify(credentials.password, user?.passwordHash ?? (await standInPasswordHash()));
  if (!user?.passwordHash || user.disabled || !matches) {
    await recordFailure(services.shared, account, from);
    await audit("auth.sign_in_failed", user, !user?.passwordHash ? "no such account" : user.disabled ? "account disabled" : "wrong password");
    return null;
  }
  await recordSuccess(services.shared, account, from);
  await audit("auth.sign_in", user);
  return { id: user.id, email: user.email, name: user.name, sessionVersion: user.sessionVersion };
}
