import { getServerSession } from "next-auth";
import { redirect } from "next/navigation";
import { authOptions } from "@/lib/auth/next-auth-options";
import type { ConsoleSession } from "@/lib/auth/console-session";

/** The signed-in console user, or a redirect to /login. Every console page and action calls this. */
export async function requireUser(): Promise<ConsoleSession> {
  const session = await getServerSession(authOptions);
  const user = session?.user as { id?: string; email?: string | null; role?: string } | undefined;
  if (!user?.id || !user.email) redirect("/login");
  return { userId: user.id, email: user.email, role: user.role === "admin" ? "admin" : "user" };
}

/** Like requireUser, but only admins pass; others are sent to the dashboard. */
export async function requireAdmin(): Promise<ConsoleSession> {
  const user = await requireUser();
  if (user.role !== "admin") redirect("/console");
  return user;
}
