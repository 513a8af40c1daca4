import { env } from "@/lib/env";
import type { Timeouts } from "@/lib/providers/upstream-http";
import type { Channel } from "@/lib/routing/channel";

/**
 * The waits for one attempt: the channel's own settings over the global ones. A stream
 * gets its headers at once from every vendor and then may pause while a model thinks,
 * so its headers and gaps are bounded by UPSTREAM_STREAM_IDLE_TIMEOUT_MS (2 min by default);
 * a non-streamed answer arrives whole, so its wait is UPSTREAM_TIMEOUT_MS (5 min).
 */
export function upstreamTimeouts(channel: Channel, stream: boolean): Timeouts {
  const wait = stream ? Math.min(env.UPSTREAM_TIMEOUT_MS, env.UPSTREAM_STREAM_IDLE_TIMEOUT_MS) : env.UPSTREAM_TIMEOUT_MS;
  return {
    connectMs: channel.timeouts.connectMs ?? Math.min(env.UPSTREAM_CONNECT_TIMEOUT_MS, env.UPSTREAM_TIMEOUT_MS),
    firstByteMs: channel.timeouts.firstByteMs ?? wait,
    idleMs: channel.timeouts.idleMs ?? wait,
    totalMs: channel.timeouts.totalMs ?? env.UPSTREAM_TOTAL_TIMEOUT_MS,
  };
}
