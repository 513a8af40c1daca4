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
 * "model = input / output [/ cached input [/ cache write]]" per line, US dollars per million tokens;
 * `*` prices every other model. Returns the first unreadable line as an error.
 */
export function parsePrices(text: string): { prices: Prices } | { error: string } {
  const prices: Prices = {};
  for (const [index, line] of text.split("\n").entries()) {
    if (!line.trim()) continue;
    const [model, amounts] = line.split("=").map((part) => part.trim());
    const numbers = (amounts ?? "").split("/").map((part) => Number(part.trim().replace(/^\$/, "")));
    if (!model || numbers.length < 2 || numbers.length > 4 || numbers.some((value) => !Number.isFinite(value) || value < 0)) {
      return { error: `Prices, line ${index + 1}: write "model = input / output" (optionally "/ cached input / cache write"), in USD per million tokens.` };
    }
    prices[model] = {
      input: numbers[0]!,
      output: numbers[1]!,
      ...(numbers[2] !== undefined ? { cachedInput: numbers[2] } : {}),
      ...(numbers[3] !== undefined ? { cacheWrite: numbers[3] } : {}),
    };
  }
  return { prices };
}

export function formatPrices(prices: Prices): string {
  // A cache-write price needs its cached-input place filled (the input price, as it charges then).
  return Object.entries(prices)
    .map(([model, price]) => {
      const cached = price.cachedInput ?? (price.cacheWrite !== undefined ? price.input : undefined);
      return `${model} = ${[price.input, price.output, cached, price.cacheWrite].filter((value) => value !== undefined).join(" / ")}`;
    })
    .join("\n");
}

export function splitModels(text: string): string[] {
  return [...new Set(text.split(/[\s,]+/).filter(Boolean))];
}

/** The upstream's model names that contain every word of the filter, in any case. */
export function filterModels(models: string[], filter: string): string[] {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  return words.length ? models.filter((model) => words.every((word) => model.toLowerCase().includes(word))) : models;
}

/** The chosen list with `models` added (in the order given) or taken out, other entries kept in place. */
export function withModels(chosen: string[], models: string[], checked: boolean): string[] {
  if (!checked) {
    const removed = new Set(models);
    return chosen.filter((model) => !removed.has(model));
  }
  const present = new Set(chosen);
  return [...chosen, ...models.filter((model) => !present.has(model))];
}
