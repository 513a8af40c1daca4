import { setTimeout as sleep } from "node:timers/promises";
import { logger } from "@/lib/logger";

/** Rows per backfill batch: tens of milliseconds of the log writer's time. */
export const BACKFILL_BATCH = 5000;
const PAUSE_MS = 20;

/**
 * Rolls up, once, the log rows a database held before the hourly rollups existed: a batch at
 * a time with a pause between, after start-up, so neither the start nor the log writer waits
 * on it. Each batch moves the backfill's mark in its own transaction, so a crash or a second
 * process resumes where the last batch ended; the retention sweep deletes nothing until the
 * mark is gone.
 */
export class HourBackfill {
  private stopped = false;
  private running: Promise<void> | undefined;

  constructor(private readonly store: { backfillHours(limit: number): Promise<boolean> }) {}

  start(): void {
    this.running ??= this.run().catch((error) => logger.error({ err: error }, "usage rollup backfill failed; it resumes at the next start"));
  }

  /** Runs batches until none is left (or stop()); resolves with how many were run. */
  async run(): Promise<void> {
    const started = Date.now();
    let batches = 0;
    while (!this.stopped && (await this.store.backfillHours(BACKFILL_BATCH))) {
      batches += 1;
      if (batches === 1) logger.info("rolling up the usage log's existing rows by the hour, in the background");
      await sleep(PAUSE_MS);
    }
    if (batches > 0 && !this.stopped) logger.info({ rows: batches * BACKFILL_BATCH, ms: Date.now() - started }, "usage rollup backfill done");
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }
}
