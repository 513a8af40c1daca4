import type { RequestLogEntry } from "./request-log-entry";
import type { RequestLogStore, TokenUsage } from "./request-log-store";
import { rollUp, type UsageHourRow } from "./usage-hours";

const MAX_BATCH = 500;
const MAX_BACKLOG = 100_000;

/**
 * Collects log rows and token usage in memory and writes them in batches, off the
 * request path. (Quotas do not wait for these writes: see lib/limits/spend-limiter.ts.)
 */
export class RequestLogWriter {
  private queue: RequestLogEntry[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  /** Requests under way whose entry is still to come (each RequestLog from creation to finish). */
  private openRequests = 0;
  private readonly settledWaiters: (() => void)[] = [];
  /** Entries still being completed (usage being estimated). */
  private readonly completing = new Set<Promise<void>>();

  constructor(
    private readonly store: RequestLogStore,
    private readonly hooks: {
      onError: (error: unknown) => void;
      /** Called after usage reached the database, to update cached token totals. */
      onUsageWritten: (tokenId: string, tokens: number) => void;
      /** Sees every entry as it is queued (metrics, the access log line). */
      onEntry?: (entry: RequestLogEntry) => void;
      /** False: rows are not stored, only the tokens' usage totals (REQUEST_LOG=off). */
      keepRows?: boolean;
    },
  ) {}

  start(intervalMs: number): void {
    this.timer = setInterval(() => void this.flush(), intervalMs);
    this.timer.unref();
  }

  enqueue(entry: RequestLogEntry): void {
    this.hooks.onEntry?.(entry);
    if (this.queue.length >= MAX_BACKLOG) this.queue.shift();
    this.queue.push(entry);
  }

  /** Rows waiting to be written (a gauge for operators). */
  get depth(): number {
    return this.queue.length + this.completing.size;
  }

  /** A request started: stop() waits for its entry. */
  opened(): void {
    this.openRequests += 1;
  }

  /** Enqueues an entry that needs async work first; flush() waits for it. Closes what opened() opened. */
  enqueueWhenReady(entry: Promise<RequestLogEntry | undefined>): void {
    this.openRequests -= 1;
    if (this.openRequests === 0) for (const wake of this.settledWaiters.splice(0)) wake();
    const settled = entry.then((ready) => ready && this.enqueue(ready), this.hooks.onError);
    const tracked = settled.finally(() => this.completing.delete(tracked));
    this.completing.add(tracked);
  }

  /** Writes everything queued so far; concurrent callers share one write. */
  async flush(): Promise<void> {
    if (this.completing.size > 0) await Promise.all(this.completing);
    if (this.flushing) return this.flushing.then(() => this.flush());
    if (this.queue.length === 0) return;
    this.flushing = this.writeAll().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  private async writeAll(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH);
      const { hours, endUserHours, usage } = totalsOf(batch);
      try {
        // Without rows (REQUEST_LOG=off) the hourly totals and the tokens' usage are still kept.
        await this.store.writeBatch({ rows: this.hooks.keepRows === false ? [] : batch, hours, endUserHours, usage });
      } catch (error) {
        this.queue.unshift(...batch);
        this.hooks.onError(error);
        return;
      }
      for (const [tokenId, { tokens }] of usage) {
        if (tokens > 0) this.hooks.onUsageWritten(tokenId, tokens);
      }
    }
  }

  /**
   * Writes everything and closes the store. Requests still finishing (a connection just
   * cut by a shutdown settles its row a few ticks later) are waited for, up to `waitMs`.
   */
  async stop(waitMs = 10_000): Promise<void> {
    clearInterval(this.timer);
    if (this.openRequests > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, waitMs);
        this.settledWaiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    await this.flush();
    await this.store.close();
  }
}

/** What a batch adds: its hourly rollup rows, and each token's usage (in id order). */
export function totalsOf(batch: readonly RequestLogEntry[]): { hours: UsageHourRow[]; endUserHours: UsageHourRow[]; usage: Map<string, TokenUsage> } {
  const usage = new Map<string, TokenUsage>();
  for (const entry of [...batch].sort((a, b) => ((a.tokenId ?? "") < (b.tokenId ?? "") ? -1 : 1))) {
    if (!entry.tokenId) continue;
    const current = usage.get(entry.tokenId) ?? { tokens: 0, usd: 0, lastUsedAt: entry.createdAt };
    current.tokens += entry.promptTokens + entry.completionTokens;
    current.usd += entry.costUsd;
    if (entry.createdAt > current.lastUsedAt) current.lastUsedAt = entry.createdAt;
    usage.set(entry.tokenId, current);
  }
  const at = (entry: RequestLogEntry) => entry.createdAt.getTime();
  return { hours: rollUp(batch, at), endUserHours: rollUp(batch, at, true), usage };
}
