import type { RequestLogEntry } from "./request-log-entry";
import type { RequestLogStore } from "./request-log-store";

const MAX_BATCH = 500;
const MAX_BACKLOG = 100_000;

/**
 * Collects log rows and token usage in memory and writes them in batches, off the
 * request path. Usage not yet written is visible through `pendingTokens` so quota
 * checks stay exact between flushes.
 */
export class RequestLogWriter {
  private queue: RequestLogEntry[] = [];
  private readonly pendingUsage = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  /** Entries still being completed (usage being estimated). */
  private readonly completing = new Set<Promise<void>>();

  constructor(
    private readonly store: RequestLogStore,
    private readonly hooks: {
      onError: (error: unknown) => void;
      /** Called after usage reached the database, to update cached token totals. */
      onUsageWritten: (tokenId: string, tokens: number) => void;
    },
  ) {}

  start(intervalMs: number): void {
    this.timer = setInterval(() => void this.flush(), intervalMs);
    this.timer.unref();
  }

  enqueue(entry: RequestLogEntry): void {
    if (this.queue.length >= MAX_BACKLOG) this.queue.shift();
    this.queue.push(entry);
    const tokens = entry.promptTokens + entry.completionTokens;
    if (entry.tokenId && tokens > 0) {
      this.pendingUsage.set(entry.tokenId, (this.pendingUsage.get(entry.tokenId) ?? 0) + tokens);
    }
  }

  /** Enqueues an entry that needs async work first; flush() waits for it. */
  enqueueWhenReady(entry: Promise<RequestLogEntry | undefined>): void {
    const settled = entry.then((ready) => ready && this.enqueue(ready), this.hooks.onError);
    const tracked = settled.finally(() => this.completing.delete(tracked));
    this.completing.add(tracked);
  }

  pendingTokens(tokenId: string): number {
    return this.pendingUsage.get(tokenId) ?? 0;
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
      const usage = new Map<string, { tokens: number; lastUsedAt: Date }>();
      for (const entry of batch) {
        if (!entry.tokenId) continue;
        const current = usage.get(entry.tokenId) ?? { tokens: 0, lastUsedAt: entry.createdAt };
        current.tokens += entry.promptTokens + entry.completionTokens;
        if (entry.createdAt > current.lastUsedAt) current.lastUsedAt = entry.createdAt;
        usage.set(entry.tokenId, current);
      }
      try {
        await this.store.writeBatch(batch, usage);
      } catch (error) {
        this.queue.unshift(...batch);
        this.hooks.onError(error);
        return;
      }
      for (const [tokenId, { tokens }] of usage) {
        if (tokens === 0) continue;
        const left = (this.pendingUsage.get(tokenId) ?? 0) - tokens;
        if (left > 0) this.pendingUsage.set(tokenId, left);
        else this.pendingUsage.delete(tokenId);
        this.hooks.onUsageWritten(tokenId, tokens);
      }
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
    await this.store.close();
  }
}
