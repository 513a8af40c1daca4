import { channelPrice } from "@/lib/catalogue/channel-price";
import type { Spend } from "@/lib/limits/spend-limiter";
import type { Channel } from "@/lib/routing/channel";

/** The most a call for `model` on these candidates may spend: the prompt estimate and max output, at the dearest candidate's price. */
export function worstCase(estimate: { inputTokens: number; outputTokens: number }, candidates: readonly Channel[], model: string): Spend {
  const tokens = Math.ceil(estimate.inputTokens + estimate.outputTokens);
  const usd = Math.max(
    0,
    ...candidates.map((channel) => {
      const price = channelPrice(channel, model)?.price;
      return price ? (estimate.inputTokens * price.input + estimate.outputTokens * price.output) / 1_000_000 : 0;
    }),
  );
  return { tokens, usd };
}
