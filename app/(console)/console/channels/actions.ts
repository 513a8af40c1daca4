"use server";

import { revalidatePath } from "next/cache";
import { toGatewayError } from "@/lib/canonical/gateway-error";
import { createChannel, createChannelSchema, deleteChannel, updateChannel, updateChannelSchema } from "@/lib/channels/channel-service";
import { testChannel, type ChannelTestResult } from "@/lib/channels/test-channel";
import { requireAdmin } from "@/lib/console/require-session";
import { getRuntime } from "@/lib/runtime";

export type ActionResult = { ok: true } | { ok: false; error: string };

function failure(error: unknown): ActionResult {
  return { ok: false, error: toGatewayError(error).message };
}

export async function saveChannelAction(id: string | null, input: unknown): Promise<ActionResult> {
  await requireAdmin();
  const runtime = await getRuntime();
  try {
    if (id) {
      const parsed = updateChannelSchema.safeParse(input);
      if (!parsed.success) return { ok: false, error: `${parsed.error.issues[0]?.path.join(".")}: ${parsed.error.issues[0]?.message}` };
      await updateChannel(runtime, id, parsed.data);
    } else {
      const parsed = createChannelSchema.safeParse(input);
      if (!parsed.success) return { ok: false, error: `${parsed.error.issues[0]?.path.join(".")}: ${parsed.error.issues[0]?.message}` };
      await createChannel(runtime, parsed.data);
    }
    revalidatePath("/console/channels");
    return { ok: true };
  } catch (error) {
    return failure(error);
  }
}

export async function setChannelEnabledAction(id: string, enabled: boolean): Promise<ActionResult> {
  await requireAdmin();
  try {
    await updateChannel(await getRuntime(), id, { enabled });
    revalidatePath("/console/channels");
    return { ok: true };
  } catch (error) {
    return failure(error);
  }
}

export async function deleteChannelAction(id: string): Promise<ActionResult> {
  await requireAdmin();
  try {
    await deleteChannel(await getRuntime(), id);
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
