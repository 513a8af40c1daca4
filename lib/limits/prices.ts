import { z } from "zod";
import type { Usage } from "@/lib/canonical/usage";

/** US dollars per million tokens. */
export const priceSchema = z.strictObject({
  input: z.number().min(0).max(10_000),
  output: z.number().min(0).max(10_000),
  cachedInput: z.number().min(0).max(10_000).optional(),
  /** Prompt tokens written to the upstream's prompt cache (Anthropic's cache_creation); input price when absent. */
  cacheWrite: z.number().min(0).max(10_000).optional(),
});
export type Price = z.infer<typeof priceSchema>;
/** Prices by model name, `*` for every other model of the channel. */
export const pricesSchema = z.record(z.string().min(1).max(200), priceSchema);
export type Prices = z.infer<typeof pricesSchema>;

export function priceFor(prices: Prices, model: string): Price | undefined {
  return prices[model] ?? prices["*"];
}

/** Cache reads and writes are parts of the prompt, each at its own price where the price has one. */
export function costOf(usage: Pick<Usage, "promptTokens" | "completionTokens" | "cachedTokens" | "cacheWriteTokens">, price: Price | undefined): number {
  if (!price) return 0;
  const cached = Math.min(usage.cachedTokens ?? 0, usage.promptTokens);
  const written = Math.min(usage.cacheWriteTokens ?? 0, usage.promptTokens - cached);
  const cost =
    (usage.promptTokens - cached - written) * price.input +
    cached * (price.cachedInput ?? price.input) +
    written * (price.cacheWrite ?? price.input) +
    usage.completionTokens * price.output;
  return cost / 1_000_000;
}
