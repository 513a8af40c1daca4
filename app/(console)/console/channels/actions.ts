"use server";

import { revalidatePath } from "next/cache";
import { toGatewayError } from "@/lib/canonical/gateway-error";
import type { z } from "zod";
import { normalizeBaseUrl } from "@/lib/providers/base-url";
import { checkChannelDraft } from "@/lib/channels/check-channel";
import { LOOP_MESSAGE } from "@/lib/channels/loop-probe";
import {
  createChannel,
  createChannelSchema,
  deleteChannel,
  draftChannel,
  getChannel,
  recordChannelHealth,
  updateChannel,
  updateChannelSchema,
  type CreateChannelInput,
} from "@/lib/channels/channel-service";
import { fetchUpstreamModels, type ModelListing } from "@/lib/channels/fetch-models";
import { testChannel, type ChannelTestResult } from "@/lib/channels/test-channel";
import { diffChanges } from "@/lib/audit/audit-log";
import { consoleAudit } from "@/lib/console/console-audit";
import { requireAdmin } from "@/lib/console/require-session";
import { getRuntime } from "@/lib/runtime";

export type ActionResult = { ok: true } | { ok: false; error: string };
/** A save refused by the check carries what the check found; the form offers the fix or "save anyway". */
export type SaveResult = { ok: true; notes: string[] } | { ok: false; error: string; suggestion?: string; checkFailed?: boolean };

function failure(error: unknown): { ok: false; error: string } {
  return { ok: false, error: toGatewayError(error).message };
}

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue ? `${issue.path.join(".") || "input"}: ${issue.message}` : "invalid input";
}

/** Saves a channel after a real test request through it, unless `check` is off ("save anyway"). */
export async function saveChannelAction(id: string | null, input: unknown, options: { check: boolean } = { check: true }): Promise<SaveResult> {
  const admin = await requireAdmin();
  const runtime = await getRuntime();
  try {
    const parsed = (id ? updateChannelSchema : createChannelSchema).safeParse(input);
    if (!parsed.success) return { ok: false, error: firstIssue(parsed.error) };
    const notes = parsed.data.baseUrl ? normalizeBaseUrl(parsed.data.baseUrl, parsed.data.type).changes : [];
    let tested: ChannelTestResult | undefined;
    if (options.check && parsed.data.enabled !== false) {
      const check = await checkChannelDraft(runtime, await draftChannel(runtime, id, parsed.data));
      // Saving without the check is offered, except for a loop: the save refuses that anyway.
      const loop = check.result?.upstreamStatus === 508 || Boolean(check.error?.includes(LOOP_MESSAGE));
      if (!check.ok) return { ok: false, error: check.error ?? "The test request failed.", suggestion: check.suggestion, checkFailed: !loop };
      tested = check.result;
    }
    const before = id ? await getChannel(runtime, id) : null;
    const saved = id ? await updateChannel(runtime, id, parsed.data) : await createChannel(runtime, parsed.data as CreateChannelInput);
    await consoleAudit(admin, id ? "channel.update" : "channel.create", { kind: "channel", id: saved.id, name: saved.name }, diffChanges(before, saved, parsed.data));
    // The check was a real call through the channel as saved: its health says so at once.
    if (tested?.ok) await recordChannelHealth(runtime, saved.id, { error: null, latencyMs: tested.latencyMs });
    revalidatePath("/console/channels");
    return { ok: true, notes };
  } catch (error) {
    return failure(error);
  }
}

/** The upstream's model list for the channel as the form has it now (saved or not). */
export async function fetchModelsAction(id: string | null, input: unknown): Promise<ModelListing> {
  await requireAdmin();
  const runtime = await getRuntime();
  const parsed = updateChannelSchema.safeParse(input);
  if (!parsed.success) return { ok: false, error: firstIssue(parsed.error) };
  try {
    return await fetchUpstreamModels(runtime, await draftChannel(runtime, id, parsed.data));
  } catch (error) {
    return failure(error);
  }
}

export async function setChannelEnabledAction(id: string, enabled: boolean): Promise<ActionResult> {
  const admin = await requireAdmin();
  try {
    const runtime = await getRuntime();
    const before = await getChannel(runtime, id);
    const saved = await updateChannel(runtime, id, { enabled });
    await consoleAudit(admin, "channel.update", { kind: "channel", id, name: saved.name }, diffChanges(before, saved, { enabled }));
    revalidatePath("/console/channels");
    return { ok: true };
  } catch (error) {
    return failure(error);
  }
}

export async function deleteChannelAction(id: string): Promise<ActionResult> {
  const admin = await requireAdmin();
  try {
    const runtime = await getRuntime();
    const before = await getChannel(runtime, id);
    await deleteChannel(runtime, id);
    await consoleAudit(admin, "channel.delete", { kind: "channel", id, name: before.name }, diffChanges(before, null));
    revalidatePath("/console/channels");
    return { ok: true };
  } catch (error) {
    return failure(error);
  }
}

export async function testChannelAction(id: string, model?: string): Promise<ChannelTestResult> {
  await requireAdmin();
  const result = await testChannel(await getRuntime(), id, model);
  revalidatePath("/console/channels");
  return result;
}
