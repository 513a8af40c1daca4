import type { GatewayError } from "@/lib/canonical/gateway-error";
import { isAsyncIterable, type ApiResponse } from "@/lib/canonical/api-types";
import { logger } from "@/lib/logger";
import type { RequestLogEntry } from "@/lib/usage/request-log-entry";
import type { RequestLogWriter } from "@/lib/usage/request-log-writer";
import { newLogId } from "@/lib/usage/log-id";
import { CallState, errorText, type CallRecord } from "./call-state";

/**
 * The record of one API request: who asked, where, and what became of it. Created when the
 * request arrives, finished exactly once (when the response is complete, the stream ends,
 * or the client goes away): its call (`call`, the state the pipeline steers by) is finished
 * then, and the row is written from the call's read-only record.
 */
export class RequestLog {
  readonly id = newLogId();
  readonly createdAt = new Date();
  /** The call this request makes: its live state, owned by the pipeline, not by the log. */
  readonly call = new CallState();
  /** The caller's `x-request-id`, when it is a plain id: echoed back and put in log lines. */
  clientRequestId: string | null = null;
  tokenId: string | null = null;
  userId: string | null = null;
  /** The MCP server and tool a /mcp tools/call reached. */
  mcpServer: string | null = null;
  mcpTool: string | null = null;
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
    return { ...response, body: this.tracked(response.body, response.status) };
  }

  /** A streamed body that finishes the log when it ends, fails or is stopped (one promise per read, no generator). */
  private tracked<T>(body: AsyncIterable<T>, status: number): AsyncIterable<T> {
    const finish = (completed: boolean) => this.finish(status, this.call.meter.error ?? (completed ? undefined : "client disconnected mid-stream"));
    return {
      [Symbol.asyncIterator]() {
        const iterator = body[Symbol.asyncIterator]();
        const read = (result: IteratorResult<T>) => {
          if (result.done) finish(true);
          return result;
        };
        const failed = (error: unknown): never => {
          finish(false);
          throw error;
        };
        return {
          next: () => iterator.next().then(read, failed),
          return: async (value?: unknown) => {
            try {
              return iterator.return ? await iterator.return(value) : { done: true, value: undefined };
            } finally {
              finish(false);
            }
          },
        };
      },
    };
  }

  /** `x-request-id`: the caller's own id when it sent one (ours then in `x-gateway-request-id`), else ours. */
  stampHeaders(headers: Record<string, string>): void {
    headers["x-request-id"] = this.clientRequestId ?? this.id;
    if (this.clientRequestId) headers["x-gateway-request-id"] = this.id;
  }

  /** Finishes the call and records the outcome; only the first call counts. */
  finish(status: number, error?: GatewayError | string): void {
    if (this.finished) return;
    this.finished = true;
    const latencyMs = Math.round(performance.now() - this.call.meter.startedAt);
    this.writer.enqueueWhenReady(
      this.call.finish(status).then(
        (record) => this.entry(record, status, latencyMs, error),
        (failure: unknown) => {
          logger.error({ err: failure, requestId: this.id }, "could not record request log");
          return undefined;
        },
      ),
    );
  }

  /** Finishes without a row: a request that is not traffic (the loop check's own probe). */
  discard(status: number): void {
    if (this.finished) return;
    this.finished = true;
    this.writer.enqueueWhenReady(this.call.finish(status).then(() => undefined));
  }

  private entry(record: CallRecord, status: number, latencyMs: number, error?: GatewayError | string): RequestLogEntry {
    return {
      id: this.id,
      clientRequestId: this.clientRequestId,
      createdAt: this.createdAt,
      endpoint: this.endpoint,
      clientFormat: this.clientFormat,
      method: this.method,
      tokenId: this.tokenId,
      userId: this.userId,
      channelId: record.channelId,
      model: record.model,
      upstreamModel: record.upstreamModel,
      servedModel: record.servedModel,
      status,
      stream: record.stream,
      promptTokens: record.promptTokens,
      completionTokens: record.completionTokens,
      cachedTokens: record.cachedTokens,
      reasoningTokens: record.reasoningTokens,
      usageEstimated: record.usageEstimated,
      latencyMs,
      firstTokenMs: record.firstTokenMs,
      costUsd: record.costUsd,
      errorMessage: errorText(error),
      warnings: record.warnings.length > 0 ? [...record.warnings] : null,
      attempts: record.attempts.length > 0 ? [...record.attempts] : null,
      sessionHash: record.sessionHash,
      cacheStatus: record.cacheStatus,
      cacheSavedUsd: record.cacheSavedUsd,
      mcpServer: this.mcpServer,
      mcpTool: this.mcpTool,
      endUser: record.endUser,
    };
  }
}
