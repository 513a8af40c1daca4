import { logger } from "@/lib/logger";
import type { Channel } from "@/lib/routing/channel";
import type { Runtime } from "@/lib/runtime/runtime-types";
import { clearAutoDisable, clearKeyDisable } from "./channel-service";
import { probeChannel, testChannel } from "./test-channel";

/**
 * Re-tries channels the gateway disabled itself (a revoked key, no credit) on a
 * schedule, and puts each back into rotation once it answers again. Channels an
 * administrator switched off are never touched.
 */
export class ChannelProber {
  private timer: NodeJS.Timeout | undefined;
  private running = false;

  constructor(
    private readonly runtime: Runtime,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.probeAll(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Each pool key the upstream refused, tried alone; one that answers is back in the pool. */
  private async probeKeys(channel: Channel): Promise<void> {
    for (const key of this.runtime.keyPools.keysOf(channel)) {
      if (!channel.disabledKeys?.[key.fingerprint]) continue;
      const result = await probeChannel(this.runtime, key.channel);
      if (!result.ok) continue;
      await clearKeyDisable(this.runtime, channel.id, key.fingerprint);
      logger.info({ channelId: channel.id, key: key.hint }, "channel key answers again; back in the pool");
    }
  }

  async probeAll(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      for (const channel of this.runtime.channels.all()) {
        if (channel.enabled && !channel.autoDisabledReason && channel.disabledKeys) await this.probeKeys(channel);
        if (!channel.enabled || !channel.autoDisabledReason) continue;
        const result = await testChannel(this.runtime, channel.id, undefined, { record: false });
        if (!result.ok) continue;
        await clearAutoDisable(this.runtime, channel.id);
        logger.info({ channelId: channel.id }, "channel answers again; back in rotation");
      }
    } catch (error) {
      logger.error({ err: error }, "channel probe failed");
    } finally {
      this.running = false;
    }
  }
}
