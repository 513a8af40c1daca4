import { channelPrice } from "@/lib/catalogue/channel-price";
import type { Channel } from "@/lib/routing/channel";

type PricedChannel = Pick<Channel, "id" | "type" | "prices" | "modelMap" | "models">;

/**
 * Whether requests had a price, so the console can tell "$0" (priced at nothing, or too
 * few tokens to count) from "—" (no price: neither the channel nor the catalogue has one).
 * The log row keeps only the amount, so the answer comes from the prices as they are now;
 * a row that cost something was priced whatever its channel says today.
 */
export function channelPricing(channels: readonly PricedChannel[]) {
  const byId = new Map(channels.map((channel) => [channel.id, channel]));
  return {
    isPriced(channelId: string | null, model: string | null): boolean {
      const channel = channelId ? byId.get(channelId) : undefined;
      return channel !== undefined && model !== null && channelPrice(channel, model) !== undefined;
    },
    /** A channel with any price at all, its own or the catalogue's: its totals read in dollars, even $0. */
    channelHasPrices(channelId: string): boolean {
      const channel = byId.get(channelId);
      if (!channel) return false;
      return Object.keys(channel.prices).length > 0 || channel.models.some((model) => channelPrice(channel, model) !== undefined);
    },
  };
}
