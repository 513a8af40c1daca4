import { GatewayError } from "@/lib/canonical/gateway-error";
import type { ModelRoute as ModelRouteRow } from "@/lib/db/generated/client";
import { channelPrice, type PriceSource } from "@/lib/catalogue/channel-price";
import { catalogueContextWindow } from "@/lib/catalogue/model-catalogue";
import type { Price } from "@/lib/limits/prices";
import type { Channel } from "@/lib/routing/channel";
import { nearestNames } from "@/lib/routing/nearest-names";
import type { Runtime } from "@/lib/runtime/runtime-types";
import { toModelRoute, type CreateModelInput, type UpdateModelInput } from "./model-route";

// Model management shared by the admin API and the console's server actions. A model is
// every name some channel lists, plus every name with a record; the record adds fallbacks,
// a strategy and a context window.

export interface ModelChannelJson {
  id: string;
  name: string;
  type: string;
  priority: number;
  weight: number;
  enabled: boolean;
  /** The upstream's name for the model on this channel (its model map), when it differs. */
  upstreamModel: string | null;
  /** The model's price on this channel (USD per million tokens): the channel's own, else the catalogue's. */
  price: Price | null;
  /** Where `price` comes from. */
  priceSource: PriceSource | null;
}

export interface ModelJson {
  /** The record's id; null for a model that only channels name (no record yet). */
  id: string | null;
  name: string;
  fallbacks: string[];
  strategy: string;
  /** The record's context window (what routing uses first). */
  contextWindow: number | null;
  /** The catalogue's context window for the name, where it knows the model (used when the record has none). */
  catalogueContextWindow: number | null;
  channels: ModelChannelJson[];
  createdAt: string | null;
  updatedAt: string | null;
}

export async function listModels(runtime: Runtime): Promise<ModelJson[]> {
  const rows = await runtime.database.modelRoute.findMany();
  const byName = new Map(rows.map((row) => [row.name, row]));
  const names = new Set([...byName.keys(), ...runtime.channels.all().flatMap((channel) => channel.models)]);
  return [...names].sort((a, b) => a.localeCompare(b)).map((name) => modelJson(runtime, name, byName.get(name)));
}

export async function getModel(runtime: Runtime, id: string): Promise<ModelJson> {
  const row = await findRow(runtime, id);
  return modelJson(runtime, row.name, row);
}

export async function createModel(runtime: Runtime, input: CreateModelInput): Promise<ModelJson> {
  checkFallbacks(input.name, input.fallbacks ?? []);
  checkFallbacksServed(runtime, input.fallbacks ?? []);
  if (await runtime.database.modelRoute.findUnique({ where: { name: input.name } })) {
    throw new GatewayError("invalid_request", `The model '${input.name}' has a record already: change it with PATCH.`, { status: 409, code: "model_exists", param: "name" });
  }
  const row = await runtime.database.modelRoute.create({
    data: { name: input.name, fallbacks: input.fallbacks ?? [], strategy: input.strategy ?? "weighted", contextWindow: input.contextWindow ?? null },
  });
  await modelsChanged(runtime);
  return modelJson(runtime, row.name, row);
}

export async function updateModel(runtime: Runtime, id: string, input: UpdateModelInput): Promise<ModelJson> {
  const existing = await findRow(runtime, id);
  const name = input.name ?? existing.name;
  checkFallbacks(name, input.fallbacks ?? toModelRoute(existing).fallbacks);
  // Only the fallbacks being set: a rename is not refused for a channel removed since.
  checkFallbacksServed(runtime, input.fallbacks ?? []);
  if (name !== existing.name && (await runtime.database.modelRoute.findUnique({ where: { name } }))) {
    throw new GatewayError("invalid_request", `The model '${name}' has a record already.`, { status: 409, code: "model_exists", param: "name" });
  }
  const row = await runtime.database.modelRoute.update({ where: { id: existing.id }, data: input });
  await modelsChanged(runtime);
  return modelJson(runtime, row.name, row);
}

/** Removes the record: the name routes as a plain model again (its channels are untouched). */
export async function deleteModel(runtime: Runtime, id: string): Promise<void> {
  const existing = await findRow(runtime, id);
  await runtime.database.modelRoute.delete({ where: { id: existing.id } });
  await modelsChanged(runtime);
}

async function findRow(runtime: Runtime, id: string): Promise<ModelRouteRow> {
  const row = await runtime.database.modelRoute.findUnique({ where: { id } });
  if (!row) throw new GatewayError("not_found", "No model record with that id.", { code: "model_not_found" });
  return row;
}

function checkFallbacks(name: string, fallbacks: string[]): void {
  if (fallbacks.includes(name)) {
    throw new GatewayError("invalid_request", "A model cannot be its own fallback.", { param: "fallbacks", code: "invalid_fallbacks" });
  }
  if (new Set(fallbacks).size !== fallbacks.length) {
    throw new GatewayError("invalid_request", "Each fallback may be listed once.", { param: "fallbacks", code: "invalid_fallbacks" });
  }
}

/**
 * A fallback must name a model some channel lists (enabled or not): a typo saved as a
 * fallback would never answer. Refused with the nearest names, as the API's unknown-model 404.
 */
function checkFallbacksServed(runtime: Runtime, fallbacks: string[]): void {
  const served = new Set(runtime.channels.all().flatMap((channel) => channel.models));
  const unknown = fallbacks.filter((fallback) => !served.has(fallback));
  if (unknown.length === 0) return;
  const sorted = [...served].sort((a, b) => a.localeCompare(b));
  const sentences = unknown.map((name) => {
    const near = nearestNames(name, sorted);
    return `No channel serves the model '${name}', so it cannot be a fallback.${near.length > 0 ? ` Did you mean ${near.map((other) => `'${other}'`).join(" or ")}?` : ""}`;
  });
  const listed = sorted.length > LISTED ? `${sorted.slice(0, LISTED).join(", ")} and ${sorted.length - LISTED} more` : sorted.join(", ");
  sentences.push(sorted.length > 0 ? `Models channels serve: ${listed}.` : "No channel serves any model yet.");
  throw new GatewayError("invalid_request", sentences.join(" "), { param: "fallbacks", code: "unknown_fallback" });
}

const LISTED = 20;

/** Reloads this process's records now and tells the other processes to. */
async function modelsChanged(runtime: Runtime): Promise<void> {
  await runtime.models.reload();
  await runtime.invalidate("models");
}

function modelJson(runtime: Runtime, name: string, row: ModelRouteRow | undefined): ModelJson {
  const route = row ? toModelRoute(row) : undefined;
  return {
    id: row?.id ?? null,
    name,
    fallbacks: route?.fallbacks ?? [],
    strategy: route?.strategy ?? "weighted",
    contextWindow: route?.contextWindow ?? null,
    catalogueContextWindow: catalogueContextWindow(name) ?? null,
    channels: runtime.channels
      .all()
      .filter((channel) => channel.models.includes(name))
      .sort((a, b) => b.priority - a.priority)
      .map((channel) => channelJson(channel, name)),
    createdAt: row?.createdAt.toISOString() ?? null,
    updatedAt: row?.updatedAt.toISOString() ?? null,
  };
}

function channelJson(channel: Channel, model: string): ModelChannelJson {
  const upstreamModel = channel.modelMap[model] ?? null;
  return {
    id: channel.id,
    name: channel.name,
    type: channel.type,
    priority: channel.priority,
    weight: channel.weight,
    enabled: channel.enabled && !channel.autoDisabledReason,
    upstreamModel,
    ...priced(channelPrice(channel, model)),
  };
}

function priced(found: { price: Price; source: PriceSource } | undefined): Pick<ModelChannelJson, "price" | "priceSource"> {
  return { price: found?.price ?? null, priceSource: found?.source ?? null };
}
