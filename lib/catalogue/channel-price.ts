import type { Price } from "@/lib/limits/prices";
import type { Channel } from "@/lib/routing/channel";
import { cataloguePrice } from "./model-catalogue";

export type PriceSource = "channel" | "catalogue";

type ChannelPrice = { price: Price; source: PriceSource };
type PricedChannel = Pick<Channel, "type" | "prices" | "modelMap">;

/** Per channel object (rebuilt whenever its row changes), each model's price once worked out: routing and metering ask per request. */
const known = new WeakMap<PricedChannel, Map<string, ChannelPrice | null>>();
const MAX_MODELS_PER_CHANNEL = 1000;

/**
 * The price a channel charges for a public model: the channel's own (by public name, then
 * upstream id, then its `*`) overrides the catalogue's (by upstream id, then public name).
 */
export function channelPrice(channel: PricedChannel, model: string): ChannelPrice | undefined {
  let models = known.get(channel);
  if (!models) known.set(channel, (models = new Map()));
  let entry = models.get(model);
  if (entry === undefined) {
    entry = lookUp(channel, model) ?? null;
    if (models.size >= MAX_MODELS_PER_CHANNEL) models.clear();
    models.set(model, entry);
  }
  return entry ?? undefined;
}

function lookUp(channel: PricedChannel, model: string): ChannelPrice | undefined {
  const upstreamModel = channel.modelMap[model] ?? model;
  const own = channel.prices[model] ?? channel.prices[upstreamModel] ?? channel.prices["*"];
  if (own) return { price: own, source: "channel" };
  const listed = cataloguePrice(upstreamModel, channel.type) ?? (upstreamModel === model ? undefined : cataloguePrice(model, channel.type));
  return listed ? { price: listed, source: "catalogue" } : undefined;
}
