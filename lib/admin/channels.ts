import { z } from "zod";
import { GatewayError } from "@/lib/canonical/gateway-error";
import { encryptSecret } from "@/lib/crypto/encryption";
import type { Channel as ChannelRow } from "@/lib/db/generated/client";
import { jsonResponse } from "@/lib/http/api-types";
import { providers } from "@/lib/providers/registry";
import { channelTypeSchema } from "@/lib/routing/channel";
import { parseAdminBody } from "./parse-admin-body";
import { withAdmin, type AdminContext } from "./with-admin";

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
const createSchema = z.strictObject(channelFields);
const updateSchema = z.strictObject(channelFields).partial();

/** Channel JSON for the admin API; the key itself never leaves the server. */
export function channelJson(row: ChannelRow) {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    baseUrl: row.baseUrl,
    hasApiKey: row.apiKeyEncrypted !== null,
    models: row.models,
    modelMap: row.modelMap,
    priority: row.priority,
    weight: row.weight,
    enabled: row.enabled,
    lastError: row.lastError,
    lastLatencyMs: row.lastLatencyMs,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

async function findChannel({ runtime, request }: AdminContext): Promise<ChannelRow> {
  const row = await runtime.database.channel.findUnique({ where: { id: request.params.id ?? "" } });
  if (!row) throw new GatewayError("not_found", "No channel with that id.", { code: "channel_not_found" });
  return row;
}

export const listChannels = withAdmin(async ({ runtime }) => {
  const rows = await runtime.database.channel.findMany({ orderBy: [{ priority: "desc" }, { createdAt: "asc" }] });
  return jsonResponse(200, { data: rows.map(channelJson) });
});

export const createChannel = withAdmin(async ({ runtime, request }) => {
  const body = await parseAdminBody(request, createSchema);
  if (providers[body.type].requiresApiKey && !body.apiKey) {
    throw new GatewayError("invalid_request", `Channels of type '${body.type}' need an apiKey.`, { param: "apiKey" });
  }
  const row = await runtime.database.channel.create({
    data: {
      name: body.name,
      type: body.type,
      baseUrl: body.baseUrl ?? null,
      apiKeyEncrypted: body.apiKey ? encryptSecret(body.apiKey, runtime.secrets.encryptionKey) : null,
      models: body.models,
      modelMap: body.modelMap ?? {},
      priority: body.priority ?? 0,
      weight: body.weight ?? 1,
      enabled: body.enabled ?? true,
    },
  });
  await runtime.channels.reload();
  return jsonResponse(201, channelJson(row));
});

export const getChannel = withAdmin(async (context) => jsonResponse(200, channelJson(await findChannel(context))));

export const updateChannel = withAdmin(async (context) => {
  const { runtime, request } = context;
  const existing = await findChannel(context);
  const body = await parseAdminBody(request, updateSchema);
  const { apiKey, ...fields } = body;
  const row = await runtime.database.channel.update({
    where: { id: existing.id },
    data: {
      ...fields,
      ...(apiKey !== undefined
        ? { apiKeyEncrypted: apiKey === null ? null : encryptSecret(apiKey, runtime.secrets.encryptionKey) }
        : {}),
    },
  });
  await runtime.channels.reload();
  return jsonResponse(200, channelJson(row));
});

export const deleteChannel = withAdmin(async (context) => {
  const existing = await findChannel(context);
  await context.runtime.database.channel.delete({ where: { id: existing.id } });
  await context.runtime.channels.reload();
  return jsonResponse(200, { id: existing.id, deleted: true });
});
