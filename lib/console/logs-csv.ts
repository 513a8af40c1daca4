import type { RequestLog } from "@/lib/db/generated/client";

export const CSV_COLUMNS = [
  "time",
  "id",
  "endpoint",
  "client_format",
  "model",
  "upstream_model",
  "channel",
  "token",
  "status",
  "stream",
  "prompt_tokens",
  "completion_tokens",
  "cached_tokens",
  "reasoning_tokens",
  "cost_usd",
  "latency_ms",
  "first_token_ms",
  "error",
  "cache",
  "cache_saved_usd",
] as const;

/**
 * One CSV cell: quoted when it holds a separator, quote or line break; a leading = + - @
 * is defused so a spreadsheet never runs an upstream's error text as a formula.
 */
export function csvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return "";
  let text = String(value);
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvRow(row: RequestLog, names: { channel(id: string | null): string; token(id: string | null): string }): string {
  return [
    row.createdAt.toISOString(),
    row.id,
    row.endpoint,
    row.clientFormat,
    row.model,
    row.upstreamModel,
    names.channel(row.channelId),
    names.token(row.tokenId),
    row.status,
    row.stream,
    row.promptTokens,
    row.completionTokens,
    row.cachedTokens,
    row.reasoningTokens,
    row.costUsd,
    row.latencyMs,
    row.firstTokenMs,
    row.errorMessage,
    row.cacheStatus,
    row.cacheSavedUsd,
  ]
    .map(csvCell)
    .join(",");
}
