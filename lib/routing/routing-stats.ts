import type { RoutingSignals } from "./pick-channels";

/** Weight of the newest sample in the moving average: about the last five requests count. */
const SMOOTHING = 0.3;
/** A latency not refreshed for this long is forgotten: the channel counts as unmeasured and is tried again. */
const STALE_MS = 5 * 60_000;

/**
 * What the `latency` and `least-busy` strategies read, kept per process and lost on restart
 * (harmless: a few requests measure again). Not shared through the shared state on purpose:
 * every process measures the same upstreams from the same place, so its own average converges
 * within a handful of requests, and sharing would cost a shared-state write per request; in-flight
 * counts are this process's own load, which is what a balancer in front spreads.
 * Circuits and cool-downs, where a miss costs failed requests, are shared (channel-states.ts).
 */
export class RoutingStats implements RoutingSignals {
  private readonly latencies = new Map<string, { average: number; at: number }>();
  private readonly flights = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Time to first token of an attempt that answered (a whole answer's time when not streamed). */
  recordLatency(channelId: string, model: string, latencyMs: number): void {
    const key = latencyKey(channelId, model);
    const previous = this.latencies.get(key);
    const fresh = previous && this.now() - previous.at < STALE_MS;
    const average = fresh ? previous.average + SMOOTHING * (latencyMs - previous.average) : latencyMs;
    this.latencies.set(key, { average, at: this.now() });
  }

  latencyMs(channelId: string, model: string): number | undefined {
    const entry = this.latencies.get(latencyKey(channelId, model));
    return entry && this.now() - entry.at < STALE_MS ? entry.average : undefined;
  }

  /** Counts a request on the channel until the returned function is called (once; later calls do nothing). */
  begin(channelId: string): () => void {
    this.flights.set(channelId, (this.flights.get(channelId) ?? 0) + 1);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const left = (this.flights.get(channelId) ?? 1) - 1;
      if (left > 0) this.flights.set(channelId, left);
      else this.flights.delete(channelId);
    };
  }

  inFlight(channelId: string): number {
    return this.flights.get(channelId) ?? 0;
  }
}

function latencyKey(channelId: string, model: string): string {
  return `${channelId}\u0000${model}`;
}
