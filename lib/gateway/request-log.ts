import type { GatewayError } from "@/lib/canonical/gateway-error";
import { isAsyncIterable, type ApiResponse } from "@/lib/canonical/api-types";
import { logger } from "@/lib/logger";
import { countTokens } from "@/lib/usage/count-tokens";
import { costOf, type Price } from "@/lib/limits/prices";
import type { Spend } from "@/lib/limits/spend-limiter";
import type { AttemptRecord, RequestLogEntry } from "@/lib/usage/request-log-entry";
import type { RequestLogWriter } from "@/lib/usage/request-log-writer";
import { newLogId } from "@/lib/usage/log-id";
import { UsageMeter } from "@/lib/usage/usage-meter";

/**
 * The record of one API request. Created when the request arrives, finished exactly
 * once: when the response is complete, the stream ends, or the client goes away.
 */
export class RequestLog {
  readonly id = newLogId();
  readonly createdAt = new Date();
  readonly meter = new UsageMeter();
  /** The caller's `x-request-id`, when it is a plain id: echoed back and put in log lines. */
  clientRequestId: string | null = null;
  tokenId: string | null = null;
  userId: string | null = null;
  channelId: string | null = null;
  model: string | null = null;
  upstreamModel: string | null = null;
  /** The fallback model that answered, when the requested one (`model`) could not. */
  servedModel: string | null = null;
  stream = false;
  readonly warnings: string[] = [];
  /** Every upstream attempt, in order; the row keeps them all. */
  readonly attempts: AttemptRecord[] = [];
  /** The price of the model on the channel that served, for the row's cost. */
  price: Price | undefined;
  /** The response cache's verdict, for a request that asked for it; a hit's saved cost. */
  cacheStatus: "hit" | "miss" | null = null;
  cacheSavedUsd = 0;
  /** Run once the request is over, whatever its fate (saving a capture, removing spooled uploads). */
  readonly finishHooks: (() => void)[] = [];
  /** Called once with what the request really spent (quota settlement). */
  onSettle: ((spend: Spend) => void) | undefined;
  /** A hash of the client's session, when it named one (session affinity). */
  sessionHash: string | null = null;
  /** Builds the prompt text for a tokenizer estimate; set once the request is parsed. */
  promptText: (() => string) | undefined;
  private finished = false;

  constructor(
    private readonly writer: RequestLogWriter,
    public endpoint: string,
    readonly clientFormat: string,
    readonly method: string,
  ) {
    writer.opened();
  }

  /** Finishes now, or when a streamed body ends; returns the response to send. */
  finishWith(response: ApiResponse): ApiResponse {
    this.stampHeaders(response.headers);
    if (!isAsyncIterable(response.body)) {
      // Recorded just after the answer is written (the writer runs in this same turn): the
      // row, the settlement and the hooks are not in the way of the caller's answer.
      setImmediate(() => this.finish(response.status));
      return response;
    }
    const body = response.body;
    const log = this;
    async function* tracked() {
      let completed = false;
      try {
        yield* body;
        completed = true;
      } finally {
        log.finish(response.status, log.meter.error ?? (completed ? undefined : "client disconnected mid-stream"));
      }
    }
    return { ...response, body: tracked() };
  }

  /** `x-request-id`: the caller's own id when it sent one (ours then in `x-gateway-request-id`), else ours. */
  stampHeaders(headers: Record<string, string>): void {
    headers["x-request-id"] = this.clientRequestId ?? this.id;
    if (this.clientRequestId) headers["x-gateway-request-id"] = this.id;
  }

  /** Records the outcome; only the first call counts. */
  finish(status: number, error?: GatewayError | string): void {
    if (this.finished) return;
    this.finished = true;
    for (const hook of this.finishHooks) hook();
    this.writer.enqueueWhenReady(this.buildEntry(status, error));
  }

  private async buildEntry(status: number, error?: GatewayError | string): Promise<RequestLogEntry | undefined> {
    const latencyMs = Math.round(performance.now() - this.meter.startedAt);
    try {
      const usage = this.meter.usage;
      let promptTokens = usage?.promptTokens ?? 0;
      let completionTokens = usage?.completionTokens ?? 0;
      // Estimate only when an upstream answered and reported nothing; an attempt that failed
      // before any output is not billed (upstreams do not bill their errors either).
      const answered = status < 400 || this.meter.firstTokenMs !== undefined;
      const estimate = !usage && this.channelId !== null && answered;
      if (estimate) {
        promptTokens = await countTokens(this.promptText?.() ?? "");
        completionTokens = await countTokens(this.meter.generatedText);
      }
      const costUsd = costOf({ promptTokens, completionTokens, cachedTokens: usage?.cachedTokens, cacheWriteTokens: usage?.cacheWriteTokens }, this.price);
      this.onSettle?.({ tokens: promptTokens + completionTokens, usd: costUsd });
      return {
        id: this.id,
        clientRequestId: this.clientRequestId,
        createdAt: this.createdAt,
        endpoint: this.endpoint,
        clientFormat: this.clientFormat,
        method: this.method,
        tokenId: this.tokenId,
        userId: this.userId,
        channelId: this.channelId,
        model: this.model,
        upstreamModel: this.upstreamModel,
        servedModel: this.servedModel,
        status,
        stream: this.stream,
        promptTokens,
        completionTokens,
        cachedTokens: usage?.cachedTokens ?? 0,
        reasoningTokens: usage?.reasoningTokens ?? 0,
        usageEstimated: estimate,
        latencyMs,
        firstTokenMs: this.meter.firstTokenMs ?? null,
        costUsd,
        errorMessage: error === undefined ? null : typeof error === "string" ? error : error.message,
        warnings: this.warnings.length > 0 ? this.warnings : null,
        attempts: this.attempts.length > 0 ? this.attempts : null,
        sessionHash: this.sessionHash,
        cacheStatus: this.cacheStatus,
        cacheSavedUsd: this.cacheSavedUsd,
      };
    } catch (failure) {
      this.onSettle?.({ tokens: 0, usd: 0 });
      logger.error({ err: failure, requestId: this.id }, "could not record request log");
      return undefined;
    }
  }
}
