import { assertNotThrottled, recordFailure, recordSuccess } from "@/lib/console/login-throttle";
import type { Database } from "@/lib/db/client";
import type { SharedState } from "@/lib/state/shared-state";
import { standInPasswordHash, verifyPassword } from "@/lib/auth/password";

export interface PasswordSignInServices {
  database: Database;
  shared: SharedState;
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
  await assertNotThrottled(services.shared, email, address);
  const user = await services.database.user.findUnique({ where: { email } });
  // Every refusal does the one scrypt check a right password does, or the time taken
  // would tell which emails have an account (a stand-in hash when there is none to check).
  const matches = await verify(credentials.password, user?.passwordHash ?? (await standInPasswordHash()));
  if (!user?.passwordHash || user.disabled || !matches) {
    await recordFailure(services.shared, email, address);
    return null;
  }
  await recordSuccess(services.shared, email, address);
  return { id: user.id, email: user.email, name: user.name, sessionVersion: user.sessionVersion };
}
