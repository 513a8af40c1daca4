import { priceFor } from "@/lib/limits/prices";
import type { Channel } from "@/lib/routing/channel";

/**
 * Whether requests had a price, so the console can tell "$0" (priced at nothing, or too
 * few tokens to count) from "—" (no price set). The log row keeps only the amount, so
 * the answer comes from the channel's prices as they are now; a row that cost something
 * was priced whatever its channel says today.
 */
export function channelPricing(channels: readonly Pick<Channel, "id" | "prices">[]) {
  const byId = new Map(channels.map((channel) => [channel.id, channel.prices]));
  return {
    isPriced(channelId: string | null, model: string | null): boolean {
      const prices = channelId ? byId.get(channelId) : undefined;
      return prices !== undefined && model !== null && priceFor(prices, model) !== undefined;
    },
    /** A channel with any price at all: its totals read in dollars, even $0. */
    channelHasPrices(channelId: string): boolean {
      return Object.keys(byId.get(channelId) ?? {}).length > 0;
    },
  };
}
