import type { Database } from "@/lib/db/client";
import { hashPassword } from "./password";

/** Creates the first admin from ADMIN_EMAIL/ADMIN_PASSWORD when no such user exists yet. */
export async function seedAdmin(database: Database, email: string | undefined, password: string | undefined): Promise<boolean> {
  if (!email || !password) return false;
  email = email.toLowerCase();
  const existing = await database.user.findUnique({ where: { email } });
  if (existing) return false;
  try {
    await database.user.create({ data: { email, passwordHash: await hashPassword(password), role: "admin", name: "Admin" } });
  } catch (error) {
    // Another instance starting at the same moment created it first.
    if ((error as { code?: string }).code === "P2002") return false;
    throw error;
  }
  return true;
}
