import type { Database } from "@/lib/db/client";

type Outcome = { error: string | null; latencyMs: number };

/**
 * The last outcome of real traffic per channel, kept in memory on the request path
 * and written to the channel rows every few seconds, for the console's health column.
 */
export class ChannelHealth {
  private readonly changed = new Map<string, Outcome>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly database: Database,
    private readonly onError: (error: unknown) => void,
  ) {}

  record(channelId: string, outcome: Outcome): void {
    this.changed.set(channelId, outcome);
  }

  start(intervalMs: number): void {
    this.timer = setInterval(() => void this.flush(), intervalMs);
    this.timer.unref();
  }

  async flush(): Promise<void> {
    if (this.changed.size === 0) return;
    const batch = [...this.changed];
    this.changed.clear();
    try {
      await this.database.$transaction(
        batch.map(([id, outcome]) => this.database.channel.updateMany({ where: { id }, data: { lastError: outcome.error, lastLatencyMs: outcome.latencyMs } })),
      );
    } catch (error) {
      this.onError(error);
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
