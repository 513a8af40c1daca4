"use server";

import { revalidatePath } from "next/cache";
import { toGatewayError } from "@/lib/canonical/gateway-error";
import { requireAdmin } from "@/lib/console/require-session";
import { getRuntime } from "@/lib/runtime";
import { WEBHOOK_EVENTS } from "@/lib/webhooks/webhook-events";
import { createWebhook, createWebhookSchema, deleteWebhook, getWebhook, requireWebhook, updateWebhook } from "@/lib/webhooks/webhook-service";
import { diffChanges } from "@/lib/audit/audit-log";
import type { ConsoleSession } from "@/lib/auth/console-session";
import { consoleAudit } from "@/lib/console/console-audit";

export type WebhookFormState = { error: string | null; created: { url: string; secret: string } | null };

export async function createWebhookAction(_state: WebhookFormState, form: FormData): Promise<WebhookFormState> {
  const admin = await requireAdmin();
  const parsed = createWebhookSchema.safeParse({
    url: String(form.get("url") ?? "").trim(),
    events: WEBHOOK_EVENTS.filter((event) => form.get(event) === "on"),
    secret: String(form.get("secret") ?? "").trim() || undefined,
  });
  if (!parsed.success) return { error: parsed.error.issues[0]?.message ?? "Check the fields.", created: null };
  try {
    const runtime = await getRuntime();
    const created = await createWebhook(runtime.database, runtime.secrets.encryptionKey, parsed.data);
    await runtime.invalidate("webhooks");
    await consoleAudit(admin, "webhook.create", { kind: "webhook", id: created.id, name: created.url }, diffChanges(null, created, { ...parsed.data, secret: created.secret }));
    revalidatePath("/console/webhooks");
    return { error: null, created: { url: created.url, secret: created.secret } };
  } catch (error) {
    return { error: toGatewayError(error).message, created: null };
  }
}

type Result = { ok: boolean; error?: string };

async function run(work: (admin: ConsoleSession) => Promise<unknown>): Promise<Result> {
  const admin = await requireAdmin();
  try {
    await work(admin);
    revalidatePath("/console/webhooks");
    return { ok: true };
  } catch (error) {
    return { ok: false, error: toGatewayError(error).message };
  }
}

export async function setWebhookEnabledAction(id: string, enabled: boolean): Promise<Result> {
  return run(async (admin) => {
    const runtime = await getRuntime();
    const before = await getWebhook(runtime.database, id);
    const updated = await updateWebhook(runtime.database, runtime.secrets.encryptionKey, id, { enabled });
    await runtime.invalidate("webhooks");
    await consoleAudit(admin, "webhook.update", { kind: "webhook", id, name: updated.url }, diffChanges(before, updated, { enabled }));
  });
}

export async function deleteWebhookAction(id: string): Promise<Result> {
  return run(async (admin) => {
    const runtime = await getRuntime();
    const { database } = runtime;
    const { recent: _recent, deliveries: _deliveries, ...before } = await getWebhook(database, id);
    await deleteWebhook(database, id);
    await runtime.invalidate("webhooks");
    await consoleAudit(admin, "webhook.delete", { kind: "webhook", id, name: before.url }, diffChanges(before, null));
  });
}

/** Sends a test event now; a failed attempt is an error here (and is retried on its schedule). */
export async function testWebhookAction(id: string): Promise<Result> {
  await requireAdmin();
  const runtime = await getRuntime();
  try {
    await requireWebhook(runtime.database, id);
    const outcome = await runtime.webhooks.test(id);
    revalidatePath("/console/webhooks");
    return outcome.delivered ? { ok: true } : { ok: false, error: `Not delivered: ${outcome.error}` };
  } catch (error) {
    return { ok: false, error: toGatewayError(error).message };
  }
}
