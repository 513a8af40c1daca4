"use server";

import { revalidatePath } from "next/cache";
import type { z } from "zod";
import { toGatewayError } from "@/lib/canonical/gateway-error";
import { requireAdmin } from "@/lib/console/require-session";
import { createModelSchema, updateModelSchema } from "@/lib/models/model-route";
import { createModel, deleteModel, updateModel } from "@/lib/models/model-service";
import { getRuntime } from "@/lib/runtime";

export type ActionResult = { ok: true } | { ok: false; error: string };

/** Saves a model's record: creates it for a name that has none (`id` null), else updates it. */
export async function saveModelAction(id: string | null, input: unknown): Promise<ActionResult> {
  await requireAdmin();
  const parsed = id ? updateModelSchema.safeParse(input) : createModelSchema.safeParse(input);
  if (!parsed.success) return { ok: false, error: firstIssue(parsed.error) };
  try {
    const runtime = await getRuntime();
    if (id) await updateModel(runtime, id, parsed.data);
    else await createModel(runtime, parsed.data as z.infer<typeof createModelSchema>);
    revalidatePath("/console/models");
    return { ok: true };
  } catch (error) {
    return { ok: false, error: toGatewayError(error).message };
  }
}

/** Removes a model's record: the name routes as a plain model again. */
export async function deleteModelAction(id: string): Promise<ActionResult> {
  await requireAdmin();
  try {
    await deleteModel(await getRuntime(), id);
    revalidatePath("/console/models");
    return { ok: true };
  } catch (error) {
    return { ok: false, error: toGatewayError(error).message };
  }
}

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue ? `${issue.path.join(".") || "input"}: ${issue.message}` : "Invalid input";
}
