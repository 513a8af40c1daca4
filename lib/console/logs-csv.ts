import type { ConsoleSession } from "@/lib/auth/console-session";
import type { RequestLog } from "@/lib/db/generated/client";
import { iterateLogs, type LogFilter, type LogSource, readableTokens, teamTokenIds, visibleTo } from "./log-query";

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
  "end_user",
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
    row.endUser,
  ]
    .map(csvCell)
    .join(",");
}

/**
 * The rows `filter` matches that `user` may see, as CSV with a header row, newest first:
 * each keyset batch is read when the reader asks for more, so a month of rows is never held at once.
 */
export async function logsCsv(source: LogSource, user: Pick<ConsoleSession, "role" | "userId">, filter: LogFilter): Promise<ReadableStream<Uint8Array>> {
  const [channels, tokens] = await Promise.all([source.database.channel.findMany({ select: { id: true, name: true } }), readableTokens(source, user)]);
  const channelNames = new Map(channels.map((channel) => [channel.id, channel.name]));
  const tokenNames = new Map(tokens.map((token) => [token.id, token.name]));
  const names = {
    channel: (id: string | null) => (id ? (channelNames.get(id) ?? "deleted channel") : ""),
    token: (id: string | null) => (id ? (tokenNames.get(id) ?? "deleted token") : "console session"),
  };
  const encoder = new TextEncoder();
  const batches = iterateLogs(source, visibleTo(user, filter, teamTokenIds(tokens)));
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(`${CSV_COLUMNS.join(",")}\r\n`));
    },
    async pull(controller) {
      const next = await batches.next();
      if (next.done) return controller.close();
      controller.enqueue(encoder.encode(next.value.map((row) => `${csvRow(row, names)}\r\n`).join("")));
    },
    // The download was abandoned: read no further batch.
    async cancel() {
      await batches.return(undefined);
    },
  });
}
