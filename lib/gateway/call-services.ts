import type { TokenRecord } from "@/lib/auth/token-record";
import type { SpendLimiter } from "@/lib/limits/spend-limiter";
import type { Provider } from "@/lib/providers/provider";
import type { Transport } from "@/lib/providers/transport";
import type { UpstreamClient } from "@/lib/providers/upstream-http";
import type { Channel, ChannelType } from "@/lib/routing/channel";
import type { ChannelStates } from "@/lib/routing/channel-states";
import type { RequestLog } from "./request-log";

/** What the admit, pick and attempt core needs from the process: a small surface tests build in memory. */
export interface CallServices {
  providers: Record<ChannelType, Provider>;
  channels: {
    candidates(model: string): Channel[];
    /** A change another process announced, still loading. */
    readonly settling: Promise<void> | undefined;
    reload(): Promise<void>;
  };
  channelStates: ChannelStates;
  channelHealth: { record(channelId: string, sample: { error: string | null; latencyMs: number | null }): void };
  limits: Pick<SpendLimiter, "consumeRequest" | "reserve" | "settle">;
  /** The channel's transport, built once per channel version. */
  transportFor(channel: Channel): Transport;
  /** Takes a channel out of rotation after the upstream refused its credentials. */
  autoDisable(channelId: string, reason: string): void;
  routing: { maxAttempts: number; backoffMs: number };
  /** The clock cool-downs are set by (the channel states' own). */
  now(): number;
}

/** One client request as the core sees it, whatever its transport (HTTP or a WebSocket upgrade). */
export interface CallScope {
  log: RequestLog;
  token: TokenRecord;
  runtime: CallServices;
  /** The upstream client: the shared pool, or a recorder for the Playground's inspector. */
  upstream: UpstreamClient;
  /** The loop guard's header value for requests this call sends upstream. */
  hops: string;
  request: { signal: AbortSignal };
}
