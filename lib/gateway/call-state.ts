import type { GatewayError } from "@/lib/canonical/gateway-error";
import type { CallCharge } from "@/lib/limits/call-charge";
import { costOf, type Price } from "@/lib/limits/prices";
import { logger } from "@/lib/logger";
import { countTokens } from "@/lib/usage/count-tokens";
import type { AttemptRecord, RequestLogEntry } from "@/lib/usage/request-log-entry";
import { UsageMeter } from "@/lib/usage/usage-meter";

/** What a finished call hands to its log row (the row's call fields): read, never steered by. */
export type CallRecord = Pick<
  RequestLogEntry,
  | "model"
  | "upstreamModel"
  | "channelId"
  | "stream"
  | "promptTokens"
  | "completionTokens"
  | "cachedTokens"
  | "reasoningTokens"
  | "usageEstimated"
  | "costUsd"
  | "firstTokenMs"
  | "cacheStatus"
  | "cacheSavedUsd"
> & {
  servedModel: string | null;
  endUser: string | null;
  sessionHash: string | null;
  warnings: readonly string[];
  attempts: readonly AttemptRecord[];
};

/**
 * One call's own state while it runs: its attempts (and so what is left of the attempt
 * budget), what it holds against its limits, what runs when it is over, the channel and model
 * that serve it, its session. `finish()` ends it once: the hooks run, the spend is worked out
 * and settled, and a read-only record comes back for the request log, which steers nothing.
 */
export class CallState {
  readonly meter = new UsageMeter();
  /** Parameters dropped or changed on the way (a warning on the log row, `x-gateway-warning`). */
  readonly warnings: string[] = [];
  /** Every upstream attempt, in order: the attempt budget is the request's, fallbacks included. */
  readonly attempts: AttemptRecord[] = [];
  model: string | null = null;
  stream = false;
  /** The channel of the last attempt (the one that serves, once one does), its upstream name and price. */
  channelId: string | null = null;
  upstreamModel: string | null = null;
  price: Price | undefined;
  /** The fallback model that answered, when the requested one could not. */
  servedModel: string | null = null;
  /** A hash of the client's session (never the id): the pin's name and the upstream's cache key. */
  sessionHash: string | null = null;
  /** The response cache's verdict, for a request that asked for it; a hit's saved cost. */
  cacheStatus: "hit" | "miss" | null = null;
  cacheSavedUsd = 0;
  /** The app's end user the request named (as logged: long ids shortened). */
  endUser: string | null = null;
  /** Builds the prompt's text for a tokenizer estimate; set once the request is parsed. */
  promptText: (() => string) | undefined;
  /** What the call holds against its limits, once admitted; settled by `finish()`. */
  charge: CallCharge | undefined;
  private readonly hooks: (() => void)[] = [];
  private finished: Promise<CallRecord> | undefined;

  /** Runs once the call is over, whatever its fate (a stream's end, a capture saved, uploads removed). */
  onFinish(hook: () => void): void {
    this.hooks.push(hook);
  }

  /** Ends the call: hooks, then the spend settled with what was really used; only the first call counts. */
  finish(status: number): Promise<CallRecord> {
    if (this.finished) return this.finished;
    for (const hook of this.hooks) {
      try {
        hook();
      } catch (error) {
        logger.error({ err: error }, "a call's finish hook failed");
      }
    }
    this.finished = this.record(status).then(
      (record) => {
        this.charge?.settle({ tokens: record.promptTokens + record.completionTokens, usd: record.costUsd });
        return record;
      },
      (error: unknown) => {
        this.charge?.settle({ tokens: 0, usd: 0 });
        throw error;
      },
    );
    return this.finished;
  }

  private async record(status: number): Promise<CallRecord> {
    const usage = this.meter.usage;
    let promptTokens = usage?.promptTokens ?? 0;
    let completionTokens = usage?.completionTokens ?? 0;
    // Estimated only when an upstream answered and reported nothing; an attempt that failed
    // before any output is not billed (upstreams do not bill their errors either).
    const answered = status < 400 || this.meter.firstTokenMs !== undefined;
    const estimate = !usage && this.channelId !== null && answered;
    if (estimate) {
      promptTokens = await countTokens(this.promptText?.() ?? "");
      completionTokens = await countTokens(this.meter.generatedText);
    }
    return {
      model: this.model,
      upstreamModel: this.upstreamModel,
      servedModel: this.servedModel,
      channelId: this.channelId,
      stream: this.stream,
      promptTokens,
      completionTokens,
      cachedTokens: usage?.cachedTokens ?? 0,
      reasoningTokens: usage?.reasoningTokens ?? 0,
      usageEstimated: estimate,
      costUsd: costOf({ promptTokens, completionTokens, cachedTokens: usage?.cachedTokens, cacheWriteTokens: usage?.cacheWriteTokens }, this.price),
      firstTokenMs: this.meter.firstTokenMs ?? null,
      warnings: this.warnings,
      attempts: this.attempts,
      sessionHash: this.sessionHash,
      cacheStatus: this.cacheStatus,
      cacheSavedUsd: this.cacheSavedUsd,
      endUser: this.endUser,
    };
  }
}

/** The row's error text, from an error given as text or as a GatewayError. */
export function errorText(error: GatewayError | string | undefined): string | null {
  return error === undefined ? null : typeof error === "string" ? error : error.message;
}
