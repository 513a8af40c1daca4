import assert from "node:assert/strict";
import { test } from "node:test";
import { filterModels, formatPrices, parsePrices, withModels } from "@/app/(console)/console/channels/channel-fields";
import { formatCost, splitInlineCode } from "@/app/_components/format";
import { channelPricing } from "@/lib/console/channel-pricing";
import { summarizeUsage, type UsageGroup } from "@/lib/console/dashboard-stats";

test("inline code is split out of text; a lone backtick stays as written", () => {
  assert.deepEqual(splitInlineCode("Chat completion (stream with `stream: true`)"), [
    { text: "Chat completion (stream with ", code: false },
    { text: "stream: true", code: true },
    { text: ")", code: false },
  ]);
  assert.deepEqual(splitInlineCode("`a` and `b`"), [
    { text: "a", code: true },
    { text: " and ", code: false },
    { text: "b", code: true },
  ]);
  assert.deepEqual(splitInlineCode("it`s"), [{ text: "it`s", code: false }]);
});

test("a cost reads $0 when priced at nothing and — when no price applied", () => {
  assert.equal(formatCost(0, true), "$0");
  assert.equal(formatCost(0, false), "—");
  assert.equal(formatCost(0.0042, false), "$0.0042");
  const pricing = channelPricing([
    { ...unpriced("free"), prices: { "free-model": { input: 0, output: 0 } } },
    { ...unpriced("star"), prices: { "*": { input: 1, output: 2 } } },
    unpriced("mock"),
    { ...unpriced("listed"), type: "openai", models: ["gpt-4o-mini"] },
  ]);
  assert.equal(pricing.isPriced("free", "free-model"), true);
  assert.equal(pricing.isPriced("free", "other-model"), false);
  assert.equal(pricing.isPriced("star", "anything"), true);
  assert.equal(pricing.isPriced("mock", "mock-chat"), false);
  assert.equal(pricing.isPriced("deleted", "free-model"), false);
  assert.equal(pricing.isPriced(null, "free-model"), false);
  assert.equal(pricing.channelHasPrices("free"), true);
  assert.equal(pricing.channelHasPrices("mock"), false);
  // A model the catalogue prices has a price without the channel naming one.
  assert.equal(pricing.isPriced("listed", "gpt-4o-mini"), true);
  assert.equal(pricing.channelHasPrices("listed"), true);
});

function unpriced(id: string) {
  return { id, type: "mock" as const, prices: {}, modelMap: {}, models: [] as string[] };
}

test("the dashboard files a deleted channel's model as served and a refused name as unknown", () => {
  const group = (model: string | null, channelId: string | null, tokenId: string | null, costUsd = 0): UsageGroup => ({
    model,
    channelId,
    tokenId,
    requests: 1,
    tokens: 10,
    costUsd,
  });
  const pricing = channelPricing([unpriced("mock"), { ...unpriced("free"), prices: { "free-model": { input: 0, output: 0 } } }]);
  const usage = summarizeUsage(
    [
      group("mock-chat", "mock", "t1"),
      group("free-model", "free", "t1"),
      group("retired-model", "gone-channel", "t2", 0.5),
      group("gpt-tset", null, "t2"),
      group(null, null, "t3"),
    ],
    new Set(["mock-chat", "free-model"]),
    pricing,
    new Map([["gpt-tset", 1]]),
  );
  assert.deepEqual(usage.byModel.map((row) => [row.model, row.priced]).sort(), [
    ["free-model", true],
    ["mock-chat", false],
    ["retired-model", false],
  ]);
  assert.deepEqual(
    usage.unknownModels.map((row) => [row.model, row.errors]),
    [["gpt-tset", 1]],
  );
  const tokens = new Map(usage.byToken.map((row) => [row.tokenId, row]));
  assert.equal(tokens.get("t1")!.priced, true);
  assert.equal(tokens.get("t2")!.costUsd, 0.5);
  assert.equal(tokens.get("t3")!.requests, 1);
  assert.equal(usage.priced, true);
});

test("the upstream model list filters by every word and selects or clears what it shows", () => {
  const models = ["openai/gpt-4o-mini", "openai/gpt-4o", "meta/llama-3-70b", "GPT-5-MINI"];
  assert.deepEqual(filterModels(models, "gpt mini"), ["openai/gpt-4o-mini", "GPT-5-MINI"]);
  assert.deepEqual(filterModels(models, "  "), models);
  assert.deepEqual(withModels(["mine"], ["a", "mine", "b"], true), ["mine", "a", "b"]);
  assert.deepEqual(withModels(["mine", "a", "b"], ["a", "b"], false), ["mine"]);
});

test("prices read and write with an optional cache-read and cache-write price", () => {
  const parsed = parsePrices("claude-sonnet-4 = 3 / 15 / 0.3 / 3.75\ngpt-4o-mini = 0.15 / 0.6\n* = $1 / $2 / 0.5");
  assert.deepEqual(parsed, {
    prices: {
      "claude-sonnet-4": { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 },
      "gpt-4o-mini": { input: 0.15, output: 0.6 },
      "*": { input: 1, output: 2, cachedInput: 0.5 },
    },
  });
  assert.ok("error" in parsePrices("m = 1 / 2 / 3 / 4 / 5"));
  // A cache-write price without a cached-input one keeps its place: cached input reads as the input price.
  assert.equal(formatPrices({ m: { input: 3, output: 15, cacheWrite: 3.75 } }), "m = 3 / 15 / 3 / 3.75");
  assert.equal(formatPrices(parsed.prices), "claude-sonnet-4 = 3 / 15 / 0.3 / 3.75\ngpt-4o-mini = 0.15 / 0.6\n* = 1 / 2 / 0.5");
});
