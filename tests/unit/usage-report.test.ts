import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { GatewayError } from "@/lib/canonical/gateway-error";
import { parseUsageReport, usageCsv, usageRows } from "@/lib/console/usage-report";
import type { UsageGroup } from "@/lib/usage/request-log-store";

const NOW = Date.parse("2025-03-10T12:34:00Z");
const parse = (query: string) => parseUsageReport(new URLSearchParams(query), NOW);

function refusedFor(query: string): string | null | undefined {
  try {
    parse(query);
  } catch (error) {
    assert.ok(error instanceof GatewayError);
    assert.equal(error.status, 400);
    return error.param;
  }
  assert.fail(`${query} was accepted`);
}

const group = (keys: Partial<UsageGroup>, costUsd = 0): UsageGroup => ({
  requests: 2,
  charged: 2,
  errors: 1,
  failed: 1,
  promptTokens: 10,
  completionTokens: 5,
  cachedTokens: 3,
  reasoningTokens: 0,
  costUsd,
  cacheHits: 0,
  cacheSavedUsd: 0,
  latencyMsSum: 0,
  firstTokenCount: 0,
  firstTokenMsSum: 0,
  ...keys,
});

describe("usage report parameters", () => {
  test("default to the last 30 days up to now, as one total", () => {
    const { query, format } = parse("");
    assert.equal(format, "json");
    assert.equal(query.to.toISOString(), "2025-03-10T12:34:00.000Z");
    assert.equal(query.from.toISOString(), "2025-02-08T12:34:00.000Z");
    assert.deepEqual(query.groupBy, []);
  });

  test("read dates, instants with offsets (an unencoded + arrives as a space), groups and filters", () => {
    const { query } = parse("from=2025-03-01&to=2025-03-02T00:00:00 02:00&group_by=day,model&group_by=token,day&token=t1&model=m&user=u&channel=c");
    assert.equal(query.from.toISOString(), "2025-03-01T00:00:00.000Z");
    assert.equal(query.to.toISOString(), "2025-03-01T22:00:00.000Z");
    assert.deepEqual(query.groupBy, ["day", "model", "token"]);
    assert.deepEqual([query.tokenIds, query.models, query.userId, query.channelId], [["t1"], ["m"], "u", "c"]);
  });

  test("refuse what they cannot read, naming the parameter", () => {
    assert.equal(refusedFor("group_by=day,week"), "group_by");
    assert.equal(refusedFor("from=yesterday"), "from");
    assert.equal(refusedFor("from=2025-02-30"), "from", "no rolling into March");
    assert.equal(refusedFor("to=2025-03-01T10:00:00"), "to", "a local time without an offset is ambiguous");
    assert.equal(refusedFor("from=2025-03-02&to=2025-03-01"), "from");
    assert.equal(refusedFor("from=2025-03-01&to=2025-03-01"), "from");
    assert.equal(refusedFor("format=xml"), "format");
    assert.equal(refusedFor("from=2024-01-01&to=2025-01-01&group_by=hour"), "group_by");
    assert.equal(parse("from=2024-01-01&to=2025-01-01&group_by=day").query.groupBy[0], "day");
  });
});

describe("usage report rows", () => {
  test("carry the group keys named as grouped, then the totals, costs without float drift", () => {
    const rows = usageRows([group({ day: "2025-03-01", model: "gpt", token: null }, 0.1 + 0.2)], ["day", "model", "token"]);
    assert.deepEqual(rows, [{ day: "2025-03-01", model: "gpt", token: null, requests: 2, errors: 1, prompt_tokens: 10, completion_tokens: 5, cached_tokens: 3, cost_usd: 0.3 }]);
    assert.deepEqual(Object.keys(rows[0]!).slice(0, 3), ["day", "model", "token"]);
  });

  test("without grouping are one total row even over nothing", () => {
    assert.deepEqual(usageRows([], []), [{ requests: 0, errors: 0, prompt_tokens: 0, completion_tokens: 0, cached_tokens: 0, cost_usd: 0 }]);
    assert.deepEqual(usageRows([], ["day"]), []);
  });

  test("as CSV have a header row and defuse formula cells", () => {
    const csv = usageCsv(usageRows([group({ model: '=HYPERLINK("x")', channel: null }, 1.5)], ["model", "channel"]), ["model", "channel"]);
    assert.equal(csv, 'model,channel,requests,errors,prompt_tokens,completion_tokens,cached_tokens,cost_usd\r\n"\'=HYPERLINK(""x"")",,2,1,10,5,3,1.5\r\n');
  });
});
