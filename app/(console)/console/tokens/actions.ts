"use server";

import { revalidatePath } from "next/cache";
import type { z } from "zod";
import { toGatewayError } from "@/lib/canonical/gateway-error";
import { requireUser } from "@/lib/console/require-session";
import { getRuntime } from "@/lib/runtime";
import { createToken, createTokenSchema, deleteToken, updateToken, updateTokenSchema, type TokenJson, type TokenScope } from "@/lib/tokens/token-service";

export type CreateTokenResult = { ok: true; token: TokenJson; key: string } | { ok: false; error: string };
export type ActionResult = { ok: true } | { ok: false; error: string };

async function scope(): Promise<TokenScope> {
  const user = await requireUser();
  return user.role === "admin" ? { kind: "all" } : { kind: "user", userId: user.userId };
}

export async function createTokenAction(input: unknown): Promise<CreateTokenResult> {
  const user = await requireUser();
  const parsed = createTokenSchema.omit({ userId: true }).safeParse(input);
  if (!parsed.success) return { ok: false, error: fieldError(parsed.error) };
  const { key, ...token } = await createToken(await getRuntime(), parsed.data, user.userId);
  revalidatePath("/console/tokens");
  return { ok: true, token, key };
}

/** Edits any field of a token; the API sees the change on the next request (the cache is dropped). */
export async function updateTokenAction(id: string, input: unknown): Promise<ActionResult> {
  const parsed = updateTokenSchema.omit({ userId: true }).safeParse(input);
  if (!parsed.success) return { ok: false, error: fieldError(parsed.error) };
  try {
    await updateToken(await getRuntime(), await scope(), id, parsed.data);
    revalidatePath("/console/tokens");
    return { ok: true };
  } catch (error) {
    return { ok: false, error: toGatewayError(error).message };
  }
}

function fieldError(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue ? `${issue.path.join(".") || "input"}: ${issue.message}` : "Invalid input";
}

export async function setTokenEnabledAction(id: string, enabled: boolean): Promise<ActionResult> {
  try {
    await updateToken(await getRuntime(), await scope(), id, { enabled });
    revalidatePath("/console/tokens");
    return { ok: true };
  } catch (error) {
    return { ok: false, error: toGatewayError(error).message };
  }
}

export async function deleteTokenAction(id: string): Promise<ActionResult> {
  try {
    await deleteToken(await getRuntime(), await scope(), id);
    revalidatePath("/console/tokens");
    return { ok: true };
  } catch (error) {
    return { ok: false, error: toGatewayError(error).message };
  }
}
