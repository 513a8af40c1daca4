import type { ApiResponse } from "@/lib/canonical/api-types";
import { jsonResponse } from "@/lib/canonical/api-types";
import { GatewayError } from "@/lib/canonical/gateway-error";
import type { Runtime } from "@/lib/runtime";
import { loggedEndUser } from "@/lib/teams/end-users";
import { USAGE_DIMENSIONS, type UsageDimension, type UsageGroup, type UsageQuery } from "@/lib/usage/request-log-store";
import { csvCell } from "./logs-csv";

// The usage API's one reading of its parameters and one rendering of its answer, for
// GET /api/admin/usage (everyone's usage) and GET /api/usage (the caller's own).

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Without `from`, a report covers this many days up to `to`. */
export const DEFAULT_DAYS = 30;
/** Grouping by hour spans at most this many days (about 2,200 hours per group). */
export const HOURLY_MAX_DAYS = 92;

/** The totals every row carries, after its group keys. */
export const USAGE_COLUMNS = ["requests", "errors", "prompt_tokens", "completion_tokens", "cached_tokens", "cost_usd"] as const;

export type UsageRow = Record<string, string | number | null>;

export interface UsageReport {
  query: UsageQuery & { to: Date };
  format: "json" | "csv";
}

const invalid = (param: string, message: string) => new GatewayError("invalid_request", message, { param });

const INSTANT = /^(\d{4})-(\d{2})-(\d{2})(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/;

/** An ISO 8601 date (UTC midnight) or instant with its offset; a local time without one is refused as ambiguous. */
function parseInstant(param: string, raw: string): Date {
  // An unencoded `+02:00` arrives as a space.
  const value = raw.trim().replace(/ (\d{2}:\d{2})$/, "+$1");
  const match = INSTANT.exec(value);
  const time = match ? Date.parse(value) : Number.NaN;
  // Date.parse rolls 2025-02-30 over into March: the date must read back as written.
  const date = match ? new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]))) : null;
  if (!match || Number.isNaN(time) || date?.toISOString().slice(0, 10) !== `${match[1]}-${match[2]}-${match[3]}`) {
    throw invalid(param, `${param} must be an ISO 8601 date (2025-01-31) or instant with its offset (2025-01-31T12:00:00Z).`);
  }
  return new Date(time);
}

function parseGroupBy(params: URLSearchParams): UsageDimension[] {
  const names = params
    .getAll("group_by")
    .flatMap((value) => value.split(","))
    .map((name) => name.trim())
    .filter(Boolean);
  for (const name of names) {
    if (!(USAGE_DIMENSIONS as readonly string[]).includes(name)) {
      throw invalid("group_by", `Unknown group_by \`${name}\`: use any of ${USAGE_DIMENSIONS.join(", ")}, comma-separated.`);
    }
  }
  return [...new Set(names as UsageDimension[])];
}

const filter = (params: URLSearchParams, name: string) => params.get(name)?.trim() || undefined;

/**
 * `from`, `to` (exclusive; default: the last 30 days up to now), `group_by`, `format`
 * (json or csv) and the filters `token`, `user`, `model`, `channel`, `end_user`; a bad one is a 400 naming it.
 */
export function parseUsageReport(params: URLSearchParams, now = Date.now()): UsageReport {
  const to = params.get("to") ? parseInstant("to", params.get("to")!) : new Date(now);
  const from = params.get("from") ? parseInstant("from", params.get("from")!) : new Date(to.getTime() - DEFAULT_DAYS * DAY);
  if (from.getTime() >= to.getTime()) throw invalid("from", "from must be before to.");
  const groupBy = parseGroupBy(params);
  if (groupBy.includes("hour") && to.getTime() - from.getTime() > HOURLY_MAX_DAYS * DAY) {
    throw invalid("group_by", `group_by=hour covers at most ${HOURLY_MAX_DAYS} days: narrow from and to, or group by day.`);
  }
  const format = params.get("format") ?? "json";
  if (format !== "json" && format !== "csv") throw invalid("format", "format must be json or csv.");
  const token = filter(params, "token");
  const user = filter(params, "user");
  const model = filter(params, "model");
  const channel = filter(params, "channel");
  const endUser = filter(params, "end_user");
  return {
    format,
    query: {
      from,
      to,
      groupBy,
      ...(token ? { tokenIds: [token] } : {}),
      ...(user ? { userId: user } : {}),
      ...(model ? { models: [model] } : {}),
      ...(channel ? { channelId: channel } : {}),
      // As logged: an id past 256 characters is kept shortened (lib/teams/end-users.ts).
      ...(endUser ? { endUser: loggedEndUser(endUser) } : {}),
    },
  };
}

// Sums of float costs drift (0.1 + 0.2); a billionth of a dollar is finer than any price.
const dollars = (value: number) => Math.round(value * 1e9) / 1e9;

/** The API's rows: the group keys named as in group_by, then USAGE_COLUMNS; no grouping is one total row, zeros included. */
export function usageRows(groups: UsageGroup[], groupBy: readonly UsageDimension[]): UsageRow[] {
  const rows = groups.map((group) => {
    const row: UsageRow = {};
    for (const dimension of groupBy) row[dimension] = group[dimension] ?? null;
    row.requests = group.requests;
    row.errors = group.errors;
    row.prompt_tokens = group.promptTokens;
    row.completion_tokens = group.completionTokens;
    row.cached_tokens = group.cachedTokens;
    row.cost_usd = dollars(group.costUsd);
    return row;
  });
  if (groupBy.length === 0 && rows.length === 0) return [Object.fromEntries(USAGE_COLUMNS.map((column) => [column, 0]))];
  return rows;
}

export function usageCsv(rows: UsageRow[], groupBy: readonly UsageDimension[]): string {
  const columns = [...groupBy, ...USAGE_COLUMNS];
  return [columns.join(","), ...rows.map((row) => columns.map((column) => csvCell(row[column])).join(","))].map((line) => `${line}\r\n`).join("");
}

/** Runs a parsed report against the rollups and answers it as JSON `{data}` or CSV. */
export async function answerUsageReport(runtime: Runtime, report: UsageReport): Promise<ApiResponse> {
  // Rows still queued in this process are counted first, so the answer is current.
  await runtime.logs.flush();
  const rows = usageRows(await runtime.logStore.usage(report.query), report.query.groupBy);
  if (report.format === "json") return jsonResponse(200, { data: rows });
  const stamp = (date: Date) => date.toISOString().slice(0, 16).replace(/[:T]/g, "-");
  return {
    status: 200,
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="usage-${stamp(report.query.from)}-to-${stamp(report.query.to)}.csv"`,
      "cache-control": "no-store",
    },
    body: usageCsv(rows, report.query.groupBy),
  };
}
