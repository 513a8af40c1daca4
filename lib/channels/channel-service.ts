import { z } from "zod";
import { GatewayError } from "@/lib/canonical/gateway-error";
import { encryptSecret } from "@/lib/crypto/encryption";
import type { Channel as ChannelRow } from "@/lib/db/generated/client";
import { providers } from "@/lib/providers/registry";
import { channelTypeSchema } from "@/lib/routing/channel";
import type { Runtime } from "@/lib/runtime";

// Channel management shared by the admin API and the console's server actions.

const modelName = z.string().trim().min(1).max(200);
const channelFields = {
  name: z.string().trim().min(1).max(100),
  type: channelTypeSchema,
  baseUrl: z.url({ protocol: /^https?$/ }).nullable().optional(),
  apiKey: z.string().min(1).max(4096).nullable().optional(),
  models: z.array(modelName).max(1000),
  modelMap: z.record(modelName, modelName).optional(),
  priority: z.number().int().min(-1000).max(1000).optional(),
  weight: z.number().int().min(0).max(10_000).optional(),
  enabled: z.boolean().optional(),
};
export const createChannelSchema = z.strictObject(channelFields);
export const updateChannelSchema = z.strictObject(channelFields).partial();
export type CreateChannelInput = z.infer<typeof createChannelSchema>;
export type UpdateChannelInput = z.infer<typeof updateChannelSchema>;
export type ChannelJson = ReturnType<typeof channelJson>;

/** Channel JSON; the key itself never leaves the server. */
export function channelJson(row: ChannelRow) {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    baseUrl: row.baseUrl,
    hasApiKey: row.apiKeyEncrypted !== null,
    models: Array.isArray(row.models) ? (row.models as string[]) : [],
    modelMap: (row.modelMap ?? {}) as Record<string, string>,
    priority: row.priority,
    weight: row.weight,
    enabled: row.enabled,
    lastError: row.lastError,
    lastLatencyMs: row.lastLatencyMs,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export async function listChannels(runtime: Runtime): Promise<ChannelJson[]> {
  const rows = await runtime.database.channel.findMany({ orderBy: [{ priority: "desc" }, { createdAt: "asc" }] });
  return rows.map(channelJson);
}

export async function findChannel(runtime: Runtime, id: string): Promise<ChannelRow> {
  const row = await runtime.database.channel.findUnique({ where: { id } });
  if (!row) throw new GatewayError("not_found", "No channel with that id.", { code: "channel_not_found" });
  return row;
}

export async function createChannel(runtime: Runtime, input: CreateChannelInput): Promise<ChannelJson> {
  if (providers[input.type].requiresApiKey && !input.apiKey) {
    throw new GatewayError("invalid_request", `Channels of type '${input.type}' need an apiKey.`, { param: "apiKey" });
  }
  const row = await runtime.database.channel.create({
    data: {
      name: input.name,
      type: input.type,
      baseUrl: input.baseUrl ?? null,
      apiKeyEncrypted: input.apiKey ? encryptSecret(input.apiKey, runtime.secrets.encryptionKey) : null,
      models: input.models,
      modelMap: input.modelMap ?? {},
      priority: input.priority ?? 0,
      weight: input.weight ?? 1,
      enabled: input.enabled ?? true,
    },
  });
  await runtime.channels.reload();
  return channelJson(row);
}

export async function updateChannel(runtime: Runtime, id: string, input: UpdateChannelInput): Promise<ChannelJson> {
  const existing = await findChannel(runtime, id);
  const { apiKey, ...fields } = input;
  const row = await runtime.database.channel.update({
    where: { id: existing.id },
    data: {
      ...fields,
      ...(apiKey !== undefined ? { apiKeyEncrypted: apiKey === null ? null : encryptSecret(apiKey, runtime.secrets.encryptionKey) } : {}),
    },
  });
  await runtime.channels.reload();
  return channelJson(row);
}

export async function deleteChannel(runtime: Runtime, id: string): Promise<void> {
  const existing = await findChannel(runtime, id);
  await runtime.database.channel.delete({ where: { id: existing.id } });
  await runtime.channels.reload();
}

/** Records the outcome of the last call through a channel, for the console's health column. */
export async function recordChannelHealth(runtime: Runtime, id: string, outcome: { error: string | null; latencyMs: number | null }) {
  await runtime.database.channel.updateMany({ where: { id }, data: { lastError: outcome.error, lastLatencyMs: outcome.latencyMs } });
}
