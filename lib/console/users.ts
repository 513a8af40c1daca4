import { z } from "zod";
import { hashPassword } from "@/lib/auth/password";
import type { Runtime } from "@/lib/runtime";
import { DEFAULT_NEW_USER_LIMITS, userLimitsData } from "./user-limits";

export const newUserSchema = z.object({
  email: z.email().transform((email) => email.toLowerCase()),
  password: z.string().min(8, "Use at least 8 characters").max(200),
  name: z.string().trim().max(100).optional(),
  role: z.enum(["admin", "user"]).default("user"),
});
export type NewUser = z.input<typeof newUserSchema>;

export type CreateUserResult = { ok: true; id: string } | { ok: false; error: string };

export async function createUser(runtime: Runtime, input: NewUser): Promise<CreateUserResult> {
  const parsed = newUserSchema.safeParse(input);
  if (!parsed.success) return { ok: false, error: parsed.error.issues[0]?.message ?? "Invalid input" };
  const { email, password, name, role } = parsed.data;
  if (await runtime.database.user.findUnique({ where: { email } })) return { ok: false, error: "An account with that email exists." };
  const limits = role === "admin" ? {} : userLimitsData(DEFAULT_NEW_USER_LIMITS);
  const user = await runtime.database.user.create({ data: { email, name: name || null, role, passwordHash: await hashPassword(password), ...limits } });
  return { ok: true, id: user.id };
}

/** True until the first account exists: then /setup is closed for good. */
export async function needsSetup(runtime: Runtime): Promise<boolean> {
  return (await runtime.database.user.count()) === 0;
}
