import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { logger } from "@/lib/logger";

// Deletes what has outlived its retention, in small batches with a pause between them, so
// the request path and the log writer never wait long behind it (SQLite batches run on the
// log writer's thread, between its writes). One process at a time sweeps: the holder of a
// lease it renews between batches.

/** Rows per batch: a few milliseconds of work. */
export const SWEEP_BATCH = 500;
const PAUSE_MS = 30;
const LEASE_MS = 30_000;

export interface RetentionStore {
  kind: "request_logs" | "responses" | "audit";
  /** 0: kept forever. */
  retentionMs: number;
  sweepBefore(before: Date, limit: number): Promise<number>;
}

export interface RetentionSweeperParts {
  stores: RetentionStore[];
  intervalMs: number;
  leaseName: string;
  acquireLease(name: string, holder: string, ttlMs: number): Promise<boolean>;
  releaseLease(name: string, holder: string): Promise<void>;
  onDeleted(kind: RetentionStore["kind"], rows: number): void;
  now?: () => number;
}

export class RetentionSweeper {
  private readonly holder = randomUUID();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = false;

  constructor(private readonly parts: RetentionSweeperParts) {}

  start(): void {
    if (this.parts.intervalMs <= 0 || this.parts.stores.every((store) => store.retentionMs <= 0)) return;
    this.timer = setInterval(() => {
      this.running ??= this.sweep()
        .catch((error) => logger.error({ err: error }, "retention sweep failed; will retry"))
        .finally(() => (this.running = undefined));
    }, this.parts.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
    // Let go at once, so another process need not wait out the term.
    if (this.timer) await this.parts.releaseLease(this.parts.leaseName, this.holder).catch(() => undefined);
  }

  /** One sweep of every store, if this process holds the lease; rows deleted per kind. */
  async sweep(): Promise<Partial<Record<RetentionStore["kind"], number>>> {
    const deleted: Partial<Record<RetentionStore["kind"], number>> = {};
    const now = (this.parts.now ?? Date.now)();
    // Renewed a third of the way through its term, not per batch: on SQLite a lease write
    // waits for the writer thread's batch, and the event loop must not.
    let leasedUntil = 0;
    const holdLease = async () => {
      if (Date.now() < leasedUntil - (2 * LEASE_MS) / 3) return true;
      if (!(await this.parts.acquireLease(this.parts.leaseName, this.holder, LEASE_MS))) return false;
      leasedUntil = Date.now() + LEASE_MS;
      return true;
    };
    for (const store of this.parts.stores) {
      if (store.retentionMs <= 0) continue;
      const before = new Date(now - store.retentionMs);
      for (;;) {
        if (this.stopped || !(await holdLease())) return deleted;
        const rows = await store.sweepBefore(before, SWEEP_BATCH);
        deleted[store.kind] = (deleted[store.kind] ?? 0) + rows;
        this.parts.onDeleted(store.kind, rows);
        if (rows < SWEEP_BATCH) break;
        await sleep(PAUSE_MS);
      }
    }
    return deleted;
  }
}
