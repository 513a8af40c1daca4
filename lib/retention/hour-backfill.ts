import { setTimeout as sleep } from "node:timers/promises";
import { logger } from "@/lib/logger";

/** Rows per backfill batch: tens of milliseconds of the log writer's time. */
export const BACKFILL_BATCH = 5000;
const PAUSE_MS = 20;
const RETRY_MS = 10_000;

/**
 * Rolls up, once, the log rows a database held before the hourly rollups existed: a batch at
 * a time with a pause between, after start-up, so neither the start nor the log writer waits
 * on it. Each batch moves the backfill's mark in its own transaction, so a crash or a second
 * process resumes where the last batch ended; the retention sweep deletes nothing until the
 * mark is gone.
 */
export class HourBackfill {
  private readonly stopping = new AbortController();
  private running: Promise<void> | undefined;

  constructor(private readonly store: { backfillHours(limit: number): Promise<boolean> }) {}

  start(): void {
    this.running ??= this.run();
  }

  /** Runs batches until none is left or stop(); a failed batch is tried again after a while. */
  async run(): Promise<void> {
    const started = Date.now();
    let batches = 0;
    while (!this.stopping.signal.aborted) {
      try {
        if (!(await this.store.backfillHours(BACKFILL_BATCH))) break;
      } catch (error) {
        logger.error({ err: error }, "usage rollup backfill batch failed; trying again shortly");
        await this.pause(RETRY_MS);
        continue;
      }
      batches += 1;
      if (batches === 1) logger.info("rolling up the usage log's existing rows by the hour, in the background");
      await this.pause(PAUSE_MS);
    }
    if (batches > 0 && !this.stopping.signal.aborted) logger.info({ rows: batches * BACKFILL_BATCH, ms: Date.now() - started }, "usage rollup backfill done");
  }

  /** Waits, or less when stop() comes first. */
  private pause(ms: number): Promise<void> {
    return sleep(ms, undefined, { signal: this.stopping.signal }).catch(() => undefined);
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.running;
  }
}
