import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { bucketOf, histogramPercentile, LATENCY_BOUNDS_MS, HISTOGRAM_BUCKETS, rollUp, USAGE_HOUR_SUMS } from "@/lib/usage/usage-hours";
import { mixedEntries } from "../helpers/usage-rollup-contract";

describe("hourly rollups", () => {
  test("one row per hour, token, user, served model, channel and status class, in key order", () => {
    const rows = mixedEntries(500, "unit");
    const hours = rollUp(rows, (row) => row.createdAt.getTime());
    const keys = hours.map((row) => [row.hour, row.tokenId, row.userId, row.model, row.channelId, row.statusClass].join("\u0000"));
    assert.equal(new Set(keys).size, keys.length);
    assert.deepEqual(keys, [...keys].sort());
    const sum = (name: (typeof USAGE_HOUR_SUMS)[number]) => hours.reduce((total, row) => total + row.sums[USAGE_HOUR_SUMS.indexOf(name)]!, 0);
    assert.equal(sum("requests"), 500);
    assert.equal(
      sum("promptTokens"),
      rows.reduce((total, row) => total + row.promptTokens, 0),
    );
    assert.equal(sum("failed"), rows.filter((row) => row.status >= 400 || row.errorMessage !== null).length);
    assert.equal(sum("charged"), rows.filter((row) => row.channelId !== null || row.cacheStatus === "hit").length);
    const histogram = Array.from({ length: HISTOGRAM_BUCKETS }, (_, index) => sum(`latency${index}` as (typeof USAGE_HOUR_SUMS)[number]));
    assert.equal(
      histogram.reduce((total, count) => total + count, 0),
      rows.filter((row) => row.status < 400).length,
      "the histograms hold answers only",
    );
    const fallback = rows.find((row) => row.servedModel)!;
    assert.ok(
      hours.some((row) => row.model === fallback.servedModel && row.tokenId === (fallback.tokenId ?? "")),
      "a fallback counts for the model that served",
    );
  });

  test("percentiles interpolate within a bucket and stop at the open last one", () => {
    assert.equal(bucketOf(0), 0);
    assert.equal(bucketOf(99), 0);
    assert.equal(bucketOf(100), 1);
    assert.equal(bucketOf(1_000_000), LATENCY_BOUNDS_MS.length);
    const counts = new Array(HISTOGRAM_BUCKETS).fill(0);
    assert.equal(histogramPercentile(counts, 0.5), null);
    counts[bucketOf(150)] = 10; // [100, 200)
    assert.equal(histogramPercentile(counts, 0.5), 150);
    assert.equal(histogramPercentile(counts, 1), 200);
    counts[LATENCY_BOUNDS_MS.length] = 90;
    assert.equal(histogramPercentile(counts, 0.95), LATENCY_BOUNDS_MS.at(-1));
  });
});
