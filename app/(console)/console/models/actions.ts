"use server";

import { revalidatePath } from "next/cache";
import type { z } from "zod";
import { toGatewayError } from "@/lib/canonical/gateway-error";
import { requireAdmin } from "@/lib/console/require-session";
import { createModelSchema, updateModelSchema } from "@/lib/models/model-route";
import { createModel, deleteModel, getModel, updateModel } from "@/lib/models/model-service";
import { diffChanges } from "@/lib/audit/audit-log";
import { consoleAudit } from "@/lib/console/console-audit";
import { getRuntime } from "@/lib/runtime";

export type ActionResult = { ok: true } | { ok: false; error: string };

/** Saves a model's record: creates it for a name that has none (`id` null), else updates it. */
export async function saveModelAction(id: string | null, input: unknown): Promise<ActionResult> {
  const admin = await requireAdmin();
  const parsed = id ? updateModelSchema.safeParse(input) : createModelSchema.safeParse(input);
  if (!parsed.success) return { ok: false, error: firstIssue(parsed.error) };
  try {
    const runtime = await getRuntime();
    const before = id ? await getModel(runtime, id) : null;
    const saved = id ? await updateModel(runtime, id, parsed.data) : await createModel(runtime, parsed.data as z.infer<typeof createModelSchema>);
    await consoleAudit(admin, id ? "model.update" : "model.create", { kind: "model", id: saved.id ?? saved.name, name: saved.name }, diffChanges(before, saved, parsed.data));
    revalidatePath("/console/models");
    return { ok: true };
  } catch (error) {
    return { ok: false, error: toGatewayError(error).message };
  }
}

/** Removes a model's record: the name routes as a plain model again. */
export async function deleteModelAction(id: string): Promise<ActionResult> {
  const admin = await requireAdmin();
  try {
    const runtime = await getRuntime();
    const before = await getModel(runtime, id);
    await deleteModel(runtime, id);
    await consoleAudit(admin, "model.delete", { kind: "model", id, name: before.name }, diffChanges(before, null));
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
