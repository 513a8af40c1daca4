import { calcPrice, type ModelPrice } from "@pydantic/genai-prices";
import type { Price } from "@/lib/limits/prices";
import type { ChannelType } from "@/lib/routing/channel";

// Prices and context windows out of the box, from Pydantic's genai-prices: its data is
// bundled in the package (nothing is fetched at run time) and updated with each release.

/** The catalogue's provider to look in first for a channel type (a Bedrock id names no vendor the catalogue guesses). */
const CATALOGUE_PROVIDER: Record<ChannelType, string | undefined> = {
  openai: "openai",
  anthropic: "anthropic",
  gemini: "google",
  azure: "azure",
  bedrock: "aws",
  vertex: "google",
  mock: undefined,
};

export interface CatalogueModel {
  /** The catalogue's own id for the model matched. */
  id: string;
  /** Base-tier prices (USD per million tokens); a tiered price (Gemini above 200k prompt tokens) counts at its base. */
  price: Price | undefined;
  contextWindow: number | undefined;
}

// Matching walks the catalogue's rules: done once per name and kept (names are few).
const found = new Map<string, CatalogueModel | null>();
const MAX_REMEMBERED = 10_000;

/** The catalogue entry of an upstream model id, looked up in the channel type's vendor first. */
export function catalogueModel(model: string, channelType?: ChannelType): CatalogueModel | undefined {
  const key = `${channelType ?? ""}\u0000${model}`;
  let entry = found.get(key);
  if (entry === undefined) {
    entry = lookUp(model, channelType) ?? null;
    if (found.size >= MAX_REMEMBERED) found.clear();
    found.set(key, entry);
  }
  return entry ?? undefined;
}

export function cataloguePrice(model: string, channelType?: ChannelType): Price | undefined {
  return catalogueModel(model, channelType)?.price;
}

export function catalogueContextWindow(model: string, channelType?: ChannelType): number | undefined {
  return catalogueModel(model, channelType)?.contextWindow;
}

function lookUp(model: string, channelType: ChannelType | undefined): CatalogueModel | undefined {
  const providerId = channelType ? CATALOGUE_PROVIDER[channelType] : undefined;
  const usage = { input_tokens: 0, output_tokens: 0 };
  // The catalogue's rules are data: a name they trip over is simply not in it.
  const attempt = (options?: { providerId: string }) => {
    try {
      return calcPrice(usage, model, options);
    } catch {
      return null;
    }
  };
  const match = (providerId ? attempt({ providerId }) : null) ?? attempt();
  if (!match) return undefined;
  return { id: match.model.id, price: toPrice(match.model_price), contextWindow: match.model.context_window };
}

/** The catalogue's per-million keys in the gateway's price shape. */
function toPrice(price: ModelPrice): Price | undefined {
  const input = base(price.input_mtok);
  const output = base(price.output_mtok);
  if (input === undefined && output === undefined) return undefined;
  const cachedInput = base(price.cache_read_mtok);
  const cacheWrite = base(price.cache_write_mtok);
  return {
    input: input ?? 0,
    output: output ?? 0,
    ...(cachedInput !== undefined && { cachedInput }),
    ...(cacheWrite !== undefined && { cacheWrite }),
  };
}

function base(value: ModelPrice[string]): number | undefined {
  if (typeof value === "number") return value;
  return value?.base;
}
