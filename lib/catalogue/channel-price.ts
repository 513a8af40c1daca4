import { priceFor, type Price } from "@/lib/limits/prices";
import type { Channel } from "@/lib/routing/channel";
import { cataloguePrice } from "./model-catalogue";

export type PriceSource = "channel" | "catalogue";

/**
 * The price a channel charges for a public model: the channel's own (by public name, then
 * upstream id, then its `*`) overrides the catalogue's (by upstream id, then public name).
 */
export function channelPrice(channel: Pick<Channel, "type" | "prices" | "modelMap">, model: string): { price: Price; source: PriceSource } | undefined {
  const upstreamModel = channel.modelMap[model] ?? model;
  const own = channel.prices[model] ?? channel.prices[upstreamModel] ?? channel.prices["*"];
  if (own) return { price: own, source: "channel" };
  const listed = cataloguePrice(upstreamModel, channel.type) ?? (upstreamModel === model ? undefined : cataloguePrice(model, channel.type));
  return listed ? { price: listed, source: "catalogue" } : undefined;
}
