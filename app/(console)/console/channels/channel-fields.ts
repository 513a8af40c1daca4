import type { ChannelJson } from "@/lib/channels/channel-service";

// The channel form's text fields and the JSON they stand for.

/** "public = upstream" per line. */
export function parseModelMap(text: string): Record<string, string> {
  const map: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const [from, to] = line.split("=").map((part) => part.trim());
    if (from && to) map[from] = to;
  }
  return map;
}

export function formatModelMap(map: Record<string, string>): string {
  return Object.entries(map)
    .map(([from, to]) => `${from} = ${to}`)
    .join("\n");
}

type Prices = ChannelJson["prices"];

/**
 * "model = input / output [/ cached input]" per line, US dollars per million tokens;
 * `*` prices every other model. Returns the first unreadable line as an error.
 */
export function parsePrices(text: string): { prices: Prices } | { error: string } {
  const prices: Prices = {};
  for (const [index, line] of text.split("\n").entries()) {
    if (!line.trim()) continue;
    const [model, amounts] = line.split("=").map((part) => part.trim());
    const numbers = (amounts ?? "").split("/").map((part) => Number(part.trim().replace(/^\$/, "")));
    if (!model || numbers.length < 2 || numbers.length > 3 || numbers.some((value) => !Number.isFinite(value) || value < 0)) {
      return { error: `Prices, line ${index + 1}: write "model = input / output" (optionally "/ cached input"), in USD per million tokens.` };
    }
    prices[model] = { input: numbers[0]!, output: numbers[1]!, ...(numbers[2] !== undefined ? { cachedInput: numbers[2] } : {}) };
  }
  return { prices };
}

export function formatPrices(prices: Prices): string {
  return Object.entries(prices)
    .map(([model, price]) => `${model} = ${[price.input, price.output, price.cachedInput].filter((value) => value !== undefined).join(" / ")}`)
    .join("\n");
}

export function splitModels(text: string): string[] {
  return [...new Set(text.split(/[\s,]+/).filter(Boolean))];
}
