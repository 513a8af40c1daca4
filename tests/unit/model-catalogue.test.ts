import assert from "node:assert/strict";
import test from "node:test";
import { channelPrice } from "@/lib/catalogue/channel-price";
import { catalogueContextWindow, cataloguePrice } from "@/lib/catalogue/model-catalogue";
import { costOf } from "@/lib/limits/prices";

test("the catalogue prices and sizes well-known models by their upstream id, dated or regional names included", () => {
  const mini = cataloguePrice("gpt-4o-mini", "openai");
  assert.ok(mini && mini.input > 0 && mini.output > mini.input, "gpt-4o-mini has input and output prices");
  assert.equal(catalogueContextWindow("gpt-4o-mini"), 128_000);
  // A dated snapshot is matched to its model.
  assert.deepEqual(cataloguePrice("gpt-4o-2024-08-06", "openai"), cataloguePrice("gpt-4o", "openai"));
  const sonnet = cataloguePrice("claude-sonnet-4-20250514", "anthropic");
  assert.ok(sonnet?.cacheWrite && sonnet.cachedInput, "Anthropic's cache writes and reads have their own prices");
  assert.ok(sonnet.cacheWrite > sonnet.input && sonnet.cachedInput < sonnet.input);
  // A Bedrock id is found in the Bedrock part of the catalogue.
  assert.ok(cataloguePrice("anthropic.claude-3-5-sonnet-20240620-v1:0", "bedrock"));
  assert.equal(cataloguePrice("mock-chat", "mock"), undefined);
  assert.equal(catalogueContextWindow("no-such-model-anywhere"), undefined);
});

test("a channel's own price overrides the catalogue, which prices by upstream id, then public name", () => {
  const channel = { type: "openai" as const, prices: {}, modelMap: { fast: "gpt-4o-mini" } };
  assert.deepEqual(channelPrice(channel, "fast"), { price: cataloguePrice("gpt-4o-mini", "openai"), source: "catalogue" });
  assert.equal(channelPrice(channel, "house-model"), undefined);
  const own = { input: 1, output: 2 };
  assert.deepEqual(channelPrice({ ...channel, prices: { fast: own } }, "fast"), { price: own, source: "channel" });
  assert.deepEqual(channelPrice({ ...channel, prices: { "*": own } }, "fast"), { price: own, source: "channel" });
});

test("cache reads and writes are charged at their own prices, the rest of the prompt at the input price", () => {
  const price = { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 };
  // 1,000 prompt tokens: 200 read from the cache, 300 written to it, 500 plain.
  const cost = costOf({ promptTokens: 1000, completionTokens: 100, cachedTokens: 200, cacheWriteTokens: 300 }, price);
  assert.equal(cost, (500 * 3 + 200 * 0.3 + 300 * 3.75 + 100 * 15) / 1_000_000);
  // Without a cache-write price, written tokens cost the input price.
  assert.equal(costOf({ promptTokens: 1000, completionTokens: 0, cacheWriteTokens: 300 }, { input: 3, output: 15 }), 3000 / 1_000_000);
});
