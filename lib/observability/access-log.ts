import { logger } from "@/lib/logger";
import type { RequestLogEntry } from "@/lib/usage/request-log-entry";

/** One structured line per API request, carrying its request id(s); nothing secret is in an entry. */
export function logRequest(entry: RequestLogEntry): void {
  if (!logger.isLevelEnabled("info")) return;
  logger.info(
    {
      requestId: entry.id,
      clientRequestId: entry.clientRequestId ?? undefined,
      endpoint: entry.endpoint,
      method: entry.method,
      model: entry.model,
      channelId: entry.channelId,
      status: entry.status,
      stream: entry.stream,
      latencyMs: entry.latencyMs,
      firstTokenMs: entry.firstTokenMs,
      promptTokens: entry.promptTokens,
      completionTokens: entry.completionTokens,
      error: entry.errorMessage ?? undefined,
    },
    "request",
  );
}
