import { z } from "zod";
import { GatewayError } from "@/lib/canonical/gateway-error";
import { encryptSecret } from "@/lib/crypto/encryption";
import type { Channel as ChannelRow } from "@/lib/db/generated/client";
import { channelPrice } from "@/lib/catalogue/channel-price";
import { pricesSchema, type Price } from "@/lib/limits/prices";
import { logger } from "@/lib/logger";
import { operationSchema } from "@/lib/providers/operation";
import { providers } from "@/lib/providers/registry";
import type { KeyView } from "@/lib/routing/key-pool";
import { channelTimeoutsSchema, channelTypeSchema, type Channel, type ChannelType } from "@/lib/routing/channel";
import type { Runtime } from "@/lib/runtime/runtime-types";
import { normalizeBaseUrl } from "@/lib/providers/base-url";
import { openSettings, publicSettings, settingsToStore } from "./channel-settings";
import { editDisabledKeys } from "./disabled-keys";
import { leadsBackHere, LOOP_MESSAGE } from "./loop-probe";
import type { WebhookEvent } from "@/lib/webhooks/webhook-events";

// Channel management shared by the admin API and the console's server actions.

const modelName = z.string().trim().min(1).max(200);
const channelFields = {
  name: z.string().trim().min(1).max(100),
  type: channelTypeSchema,
  baseUrl: z
    .string()
    .trim()
    .max(2000)
    .superRefine((value, context) => {
      if (!URL.canParse(value)) context.addIssue({ code: "custom", message: "Not a URL: write it in full, such as https://api.example.com/v1." });
      else if (!/^https?:$/.test(new URL(value).protocol)) {
        context.addIssue({ code: "custom", message: `${new URL(value).protocol.replace(/:$/, "")}:// is not supported: http or https only.` });
      }
    })
    .nullable()
    .optional(),
  apiKey: z.string().min(1).max(4096).nullable().optional(),
  /** A pool of keys for one upstream (after `apiKey`, when both are given): requests spread over them. */
  apiKeys: z.array(z.string().min(1).max(4096)).max(100).nullable().optional(),
  models: z.array(modelName).max(1000),
  modelMap: z.record(modelName, modelName).optional(),
  priority: z.number().int().min(-1000).max(1000).optional(),
  weight: z.number().int().min(0).max(10_000).optional(),
  enabled: z.boolean().optional(),
  /** Operations served; empty (the default) means every one the type supports. */
  capabilities: z.array(operationSchema).max(20).optional(),
  prices: pricesSchema.optional(),
  timeouts: channelTimeoutsSchema.optional(),
  /** The type's own settings (validated by its provider); secrets inside are sealed and never shown again. */
  settings: z.record(z.string(), z.unknown()).optional(),
};
export const createChannelSchema = z.strictObject(channelFields);
export const updateChannelSchema = z.strictObject(channelFields).partial();
export type CreateChannelInput = z.infer<typeof createChannelSchema>;
export type UpdateChannelInput = z.infer<typeof updateChannelSchema>;
export type ChannelJson = ReturnType<typeof channelJson>;

/** Channel JSON; the key itself never leaves the server. With a runtime, the live routing state too. */
export function channelJson(row: ChannelRow, runtime?: Runtime) {
  const models = Array.isArray(row.models) ? (row.models as string[]) : [];
  const modelMap = (row.modelMap ?? {}) as Record<string, string>;
  const prices = (row.prices ?? {}) as Record<string, Price>;
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    baseUrl: row.baseUrl,
    hasApiKey: row.apiKeyEncrypted !== null,
    /** Each pool key as its last four characters, with its state; never the key. */
    keys: keysJson(row, runtime),
    models,
    modelMap,
    priority: row.priority,
    weight: row.weight,
    enabled: row.enabled,
    capabilities: Array.isArray(row.capabilities) ? (row.capabilities as string[]) : [],
    prices,
    /** What each model costs here and where that price comes from (the channel's own, or the catalogue). */
    modelPrices: Object.fromEntries(models.map((model) => [model, channelPrice({ type: row.type as ChannelType, prices, modelMap }, model) ?? null])),
    timeouts: (row.timeouts ?? {}) as Record<string, number>,
    ...publicSettings(row.settings),
    autoDisabledReason: row.autoDisabledReason,
    autoDisabledAt: row.autoDisabledReason === null ? null : (row.autoDisabledAt?.toISOString() ?? null),
    state: runtime?.channelStates.view(row.id) ?? null,
    lastError: row.lastError,
    lastLatencyMs: row.lastLatencyMs,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

function keysJson(row: ChannelRow, runtime?: Runtime): KeyView[] {
  const channel = runtime?.channels.all().find((item) => item.id === row.id);
  if (!channel || !runtime) return [];
  return runtime.keyPools.describe(channel);
}

/** The key pool an input sets (`apiKey` first, then `apiKeys`, each once), or undefined when it sets none. */
function inputPool(input: Pick<UpdateChannelInput, "apiKey" | "apiKeys">): string[] | undefined {
  if (input.apiKey === undefined && input.apiKeys === undefined) return undefined;
  return [...new Set([...(input.apiKey ? [input.apiKey] : []), ...(input.apiKeys ?? [])])];
}

/** The row's key columns for a pool, sealed; a new pool starts with no key refused. */
function sealedPool(pool: string[], runtime: Runtime) {
  const sealed = pool.map((key) => encryptSecret(key, runtime.secrets.encryptionKey));
  return { apiKeyEncrypted: sealed[0] ?? null, apiKeysEncrypted: sealed.slice(1), disabledKeys: {} };
}

export async function listChannels(runtime: Runtime): Promise<ChannelJson[]> {
  // This process's latest outcomes first, so the health column is current.
  await runtime.channelHealth.flush();
  const rows = await runtime.database.channel.findMany({ orderBy: [{ priority: "desc" }, { createdAt: "asc" }] });
  return rows.map((row) => channelJson(row, runtime));
}

/** One channel's JSON, its health current as of this process's latest outcomes. */
export async function getChannel(runtime: Runtime, id: string): Promise<ChannelJson> {
  await runtime.channelHealth.flush();
  return channelJson(await findChannel(runtime, id), runtime);
}

export async function findChannel(runtime: Runtime, id: string): Promise<ChannelRow> {
  const row = await runtime.database.channel.findUnique({ where: { id } });
  if (!row) throw new GatewayError("not_found", "No channel with that id.", { code: "channel_not_found" });
  return row;
}

/**
 * The channel as it would be after saving `input` (over the saved channel `id`, if any),
 * for checking it and listing its models before anything is written. Keys stay in memory.
 */
export async function draftChannel(runtime: Runtime, id: string | null, input: UpdateChannelInput): Promise<Channel> {
  await runtime.channels.reload();
  const saved = id ? runtime.channels.all().find((channel) => channel.id === id) : undefined;
  if (id && !saved) throw new GatewayError("not_found", "No channel with that id.", { code: "channel_not_found" });
  const type = input.type ?? saved?.type ?? "openai";
  const baseUrl = input.baseUrl === undefined ? saved?.baseUrl : input.baseUrl ? normalizeBaseUrl(input.baseUrl, type).url : null;
  const pool = inputPool(input);
  return {
    id: saved?.id ?? "draft",
    name: input.name ?? saved?.name ?? "draft",
    type,
    baseUrl: baseUrl || providers[type].defaultBaseUrl,
    apiKey: pool === undefined ? saved?.apiKey : pool[0],
    apiKeys: pool === undefined ? saved?.apiKeys : pool,
    models: input.models ?? saved?.models ?? [],
    modelMap: input.modelMap ?? saved?.modelMap ?? {},
    priority: input.priority ?? saved?.priority ?? 0,
    weight: input.weight ?? saved?.weight ?? 1,
    enabled: true,
    autoDisabledReason: null,
    capabilities: input.capabilities ?? saved?.capabilities ?? [],
    prices: input.prices ?? saved?.prices ?? {},
    timeouts: input.timeouts ?? saved?.timeouts ?? {},
    settings:
      input.settings === undefined && saved !== undefined && type === saved.type
        ? saved.settings
        : openSettings(settingsToStore(providers[type], type, input.settings, saved ? sealedSettings(saved, runtime) : {}, keysOf(runtime)), keysOf(runtime)),
  };
}

const keysOf = (runtime: Runtime) => [runtime.secrets.encryptionKey, ...runtime.secrets.previousEncryptionKeys];

/** A saved channel's settings sealed again, as the store holds them (for merging an update). */
function sealedSettings(channel: Channel, runtime: Runtime): Record<string, unknown> {
  return settingsToStore(runtime.providers[channel.type], channel.type, channel.settings, {}, keysOf(runtime));
}

/** A stored base URL: trimmed, without trailing slashes or a pasted endpoint path. */
function storedBaseUrl(baseUrl: string | null | undefined, type: ChannelType): string | null | undefined {
  return baseUrl ? normalizeBaseUrl(baseUrl, type).url : baseUrl;
}

export async function createChannel(runtime: Runtime, input: CreateChannelInput): Promise<ChannelJson> {
  const pool = inputPool(input) ?? [];
  if (providers[input.type].requiresApiKey && pool.length === 0) {
    throw new GatewayError("invalid_request", `Channels of type '${input.type}' need an apiKey.`, { param: "apiKey" });
  }
  if (providers[input.type].requiresBaseUrl && !input.baseUrl) {
    throw new GatewayError("invalid_request", `Channels of type '${input.type}' need a baseUrl (it has no default).`, { param: "baseUrl" });
  }
  if (input.baseUrl) await refuseLoop(runtime, await draftChannel(runtime, null, input));
  const row = await runtime.database.channel.create({
    data: {
      name: input.name,
      type: input.type,
      baseUrl: storedBaseUrl(input.baseUrl, input.type) ?? null,
      ...sealedPool(pool, runtime),
      models: input.models,
      modelMap: input.modelMap ?? {},
      priority: input.priority ?? 0,
      weight: input.weight ?? 1,
      enabled: input.enabled ?? true,
      capabilities: input.capabilities ?? [],
      prices: input.prices ?? {},
      timeouts: input.timeouts ?? {},
      settings: settingsToStore(providers[input.type], input.type, input.settings, {}, keysOf(runtime)) as object,
    },
  });
  await channelsChanged(runtime);
  return channelJson(row, runtime);
}

export async function updateChannel(runtime: Runtime, id: string, input: UpdateChannelInput): Promise<ChannelJson> {
  const existing = await findChannel(runtime, id);
  if (input.baseUrl) await refuseLoop(runtime, await draftChannel(runtime, existing.id, input));
  const { apiKey, apiKeys, settings, ...fields } = input;
  const pool = inputPool({ apiKey, apiKeys });
  const type = channelTypeSchema.parse(fields.type ?? existing.type);
  // A change of type starts its settings anew; otherwise unset secrets keep their stored values.
  const storedSettings = fields.type !== undefined && fields.type !== existing.type ? {} : existing.settings;
  const row = await runtime.database.channel.update({
    where: { id: existing.id },
    data: {
      ...fields,
      ...(settings !== undefined || type !== existing.type ? { settings: settingsToStore(providers[type], type, settings, storedSettings, keysOf(runtime)) as object } : {}),
      ...(fields.baseUrl !== undefined ? { baseUrl: storedBaseUrl(fields.baseUrl, type) } : {}),
      // An administrator's save (a new key, switching it on) is a fresh start.
      ...(pool !== undefined || input.enabled === true ? { autoDisabledReason: null, autoDisabledAt: null } : {}),
      ...(pool !== undefined ? sealedPool(pool, runtime) : {}),
    },
  });
  if (pool !== undefined) await runtime.keyPools.reset(existing.id);
  await channelsChanged(runtime);
  return channelJson(row, runtime);
}

export async function deleteChannel(runtime: Runtime, id: string): Promise<void> {
  const existing = await findChannel(runtime, id);
  await runtime.database.channel.delete({ where: { id: existing.id } });
  await channelsChanged(runtime);
}

/** A channel that would send requests back to this deployment is never saved. */
async function refuseLoop(runtime: Runtime, draft: Channel): Promise<void> {
  if (await leadsBackHere(runtime, draft)) throw new GatewayError("invalid_request", LOOP_MESSAGE, { param: "baseUrl", code: "channel_loop" });
}

/** Reloads this process's channels now and tells the other processes to. */
async function channelsChanged(runtime: Runtime): Promise<void> {
  await runtime.channels.reload();
  await runtime.invalidate("channels");
}

/**
 * Takes a channel out of rotation because the upstream refused the gateway's own
 * credentials; the prober puts it back when it answers again. Off the request path.
 */
export function recordAutoDisable(runtime: Runtime, id: string, reason: string): void {
  const seenAt = new Date();
  // Every process stops using it at once; the row and a reload follow.
  runtime.shared.publish(CHANNEL_DISABLED_TOPIC, { id, reason });
  logger.warn({ channelId: id, reason }, "channel disabled automatically");
  runtime.database.channel
    // Not when the channel was disabled or restored since the refusal was seen: a write that
    // waited (a loaded process, a busy pool) must not disable a channel a probe just restored.
    .updateMany({
      where: { id, autoDisabledReason: null, OR: [{ autoDisabledAt: null }, { autoDisabledAt: { lt: seenAt } }] },
      data: { autoDisabledReason: reason.slice(0, 1000), autoDisabledAt: seenAt },
    })
    .then(async (changed) => {
      await runtime.invalidate("channels");
      // The process whose write disabled it tells the webhooks; the others found it disabled.
      if (changed.count === 1) await runtime.webhooks.emit(channelEvent(runtime, "channel.disabled", id, reason));
    })
    .catch((error) => logger.error({ err: error, channelId: id }, "could not record the automatic disable"));
}

const EVENT_TEXT = {
  "channel.disabled": (name: string, reason: string) => `Channel "${name}" was disabled automatically: ${reason}`,
  "channel.restored": (name: string) => `Channel "${name}" answers again and is back in rotation.`,
  "channel.circuit_open": (name: string, reason: string) => `Channel "${name}" is failing; its circuit opened: ${reason}`,
  "key.disabled": (name: string, reason: string) => `A key of channel "${name}" was disabled automatically: ${reason}`,
};

/** A channel event for the webhooks, named after the channel as this process knows it. */
export function channelEvent(runtime: Runtime, event: keyof typeof EVENT_TEXT, id: string, reason: string): WebhookEvent {
  const name = runtime.channels.all().find((channel) => channel.id === id)?.name ?? id;
  const short = reason.slice(0, 300);
  return { event, text: EVENT_TEXT[event](name, short), subject: { kind: "channel", id, name }, channel: { id, name, reason: short } };
}

export const CHANNEL_DISABLED_TOPIC = "channel-disabled";

/** A key refused again within this time raises no second key.disabled. */
const KEY_EVENT_QUIET_MS = 10 * 60_000;

/**
 * Records on the row that the upstream refused one key of the channel's pool (so the
 * disable outlives this process); the other processes already skip it (key-pool.ts).
 */
export function recordKeyDisable(runtime: Runtime, id: string, fingerprint: string, reason: string): void {
  logger.warn({ channelId: id, key: fingerprint, reason }, "channel key disabled automatically");
  const write = async () => {
    // Every request in flight on a revoked key is refused: the first to write records it.
    const written = await editDisabledKeys(runtime.database, id, (keys) => (fingerprint in keys ? undefined : { ...keys, [fingerprint]: reason.slice(0, 500) }));
    if (!written?.changed) return;
    await runtime.invalidate("channels");
    // Once across processes that saw the same refusal (the key's fingerprint, never the key).
    const event = channelEvent(runtime, "key.disabled", id, `key ${fingerprint}: ${reason}`);
    await runtime.webhooks.emitOnce(`key.disabled:${id}:${fingerprint}`, KEY_EVENT_QUIET_MS, event);
  };
  write().catch((error) => logger.error({ err: error, channelId: id }, "could not record the key's automatic disable"));
}

/** Puts a pool key the upstream refused back into rotation (it answered a probe again). */
export async function clearKeyDisable(runtime: Runtime, id: string, fingerprint: string): Promise<void> {
  const written = await editDisabledKeys(runtime.database, id, (keys) => {
    if (!(fingerprint in keys)) return undefined;
    const { [fingerprint]: _cleared, ...rest } = keys;
    return rest;
  });
  // Reset even when the row no longer had it: this process may still hold the disable it heard of.
  if (!written) return;
  await runtime.keyPools.reset(id);
  await channelsChanged(runtime);
}

export async function clearAutoDisable(runtime: Runtime, id: string): Promise<void> {
  const restored = await runtime.database.channel.updateMany({
    where: { id, autoDisabledReason: { not: null } },
    // autoDisabledAt keeps the restore's time (answered as null while enabled): refusals seen before it change nothing.
    data: { autoDisabledReason: null, autoDisabledAt: new Date(), disabledKeys: {} },
  });
  if (restored.count === 0) await runtime.database.channel.updateMany({ where: { id }, data: { disabledKeys: {} } });
  else await runtime.webhooks.emit(channelEvent(runtime, "channel.restored", id, "answers a probe again"));
  await runtime.keyPools.reset(id);
  await channelsChanged(runtime);
}

/** Records the outcome of the last call through a channel, for the console's health column. */
export async function recordChannelHealth(runtime: Runtime, id: string, outcome: { error: string | null; latencyMs: number | null }) {
  await runtime.database.channel.updateMany({ where: { id }, data: { lastError: outcome.error, lastLatencyMs: outcome.latencyMs } });
}
