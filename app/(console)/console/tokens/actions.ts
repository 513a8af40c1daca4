"use server";

import { revalidatePath } from "next/cache";
import type { z } from "zod";
import { toGatewayError } from "@/lib/canonical/gateway-error";
import { requireUser } from "@/lib/console/require-session";
import { getRuntime } from "@/lib/runtime";
import {
  createToken,
  createTokenSchema,
  deleteToken,
  findToken,
  tokenJson,
  updateToken,
  updateTokenSchema,
  type TokenJson,
  type TokenScope,
  type UpdateTokenInput,
} from "@/lib/tokens/token-service";
import { diffChanges } from "@/lib/audit/audit-log";
import type { ConsoleSession } from "@/lib/auth/console-session";
import { consoleAudit } from "@/lib/console/console-audit";

export type CreateTokenResult = { ok: true; token: TokenJson; key: string } | { ok: false; error: string };
export type ActionResult = { ok: true } | { ok: false; error: string };

/** The signed-in user and the tokens they may change: every token for an admin, their own otherwise. */
async function caller(): Promise<{ user: ConsoleSession; scope: TokenScope }> {
  const user = await requireUser();
  return { user, scope: user.role === "admin" ? { kind: "all" } : { kind: "user", userId: user.userId } };
}

export async function createTokenAction(input: unknown): Promise<CreateTokenResult> {
  const user = await requireUser();
  const parsed = createTokenSchema.omit({ userId: true }).safeParse(input);
  if (!parsed.success) return { ok: false, error: fieldError(parsed.error) };
  const { key, ...token } = await createToken(await getRuntime(), parsed.data, user.userId);
  await consoleAudit(user, "token.create", { kind: "token", id: token.id, name: token.name }, diffChanges(null, token, parsed.data));
  revalidatePath("/console/tokens");
  return { ok: true, token, key };
}

/** Edits any field of a token; the API sees the change on the next request (the cache is dropped). */
export async function updateTokenAction(id: string, input: unknown): Promise<ActionResult> {
  const parsed = updateTokenSchema.omit({ userId: true }).safeParse(input);
  if (!parsed.success) return { ok: false, error: fieldError(parsed.error) };
  try {
    await audited(id, parsed.data);
    revalidatePath("/console/tokens");
    return { ok: true };
  } catch (error) {
    return { ok: false, error: toGatewayError(error).message };
  }
}

/** Changes a token the caller may change, and records the change. */
async function audited(id: string, input: UpdateTokenInput): Promise<void> {
  const { user, scope } = await caller();
  const runtime = await getRuntime();
  const before = tokenJson(await findToken(runtime, scope, id));
  const updated = await updateToken(runtime, scope, id, input);
  await consoleAudit(user, "token.update", { kind: "token", id, name: updated.name }, diffChanges(before, updated, input));
}

function fieldError(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue ? `${issue.path.join(".") || "input"}: ${issue.message}` : "Invalid input";
}

export async function setTokenEnabledAction(id: string, enabled: boolean): Promise<ActionResult> {
  try {
    await audited(id, { enabled });
    revalidatePath("/console/tokens");
    return { ok: true };
  } catch (error) {
    return { ok: false, error: toGatewayError(error).message };
  }
}

export async function deleteTokenAction(id: string): Promise<ActionResult> {
  try {
    const { user, scope } = await caller();
    const runtime = await getRuntime();
    const before = tokenJson(await findToken(runtime, scope, id));
    await deleteToken(runtime, scope, id);
    await consoleAudit(user, "token.delete", { kind: "token", id, name: before.name }, diffChanges(before, null));
    revalidatePath("/console/tokens");
    return { ok: true };
  } catch (error) {
    return { ok: false, error: toGatewayError(error).message };
  }
}
