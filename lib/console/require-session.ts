import { getServerSession } from "next-auth";
import { redirect } from "next/navigation";
import { authOptions } from "@/lib/console/next-auth-options";
import { verifySessionClaims, type ConsoleSession } from "@/lib/auth/console-session";
import { signInPath } from "@/lib/console/return-path";
import { getRuntime } from "@/lib/runtime";

/** The signed-in user as the account stands now, or null (never signed in, or the session no longer holds). */
export async function currentUser(): Promise<ConsoleSession | null> {
  const session = await getServerSession(authOptions);
  const user = session?.user as { id?: string; email?: string | null; sessionVersion?: number } | undefined;
  if (!user?.id) return null;
  return verifySessionClaims({ sub: user.id, email: user.email, sessionVersion: user.sessionVersion }, (await getRuntime()).tokens);
}

/**
 * The signed-in console user, or a redirect to /login that comes back to `from` (the
 * page's own address) once signed in. Every console page and action calls this.
 */
export async function requireUser(from?: string): Promise<ConsoleSession> {
  const user = await currentUser();
  if (!user) redirect(signInPath(from));
  return user;
}

/** Like requireUser, but only admins pass; others are sent to the dashboard. */
export async function requireAdmin(from?: string): Promise<ConsoleSession> {
  const user = await requireUser(from);
  if (user.role !== "admin") redirect("/console");
  return user;
}
