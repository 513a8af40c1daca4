import type { TokenRecord } from "@/lib/auth/token-record";
import type { AbortSource } from "@/lib/canonical/abort-source";
import type { HeaderReader } from "@/lib/canonical/api-types";
import type { GatewayError } from "@/lib/canonical/gateway-error";
import type { Operation } from "@/lib/providers/operation";
import type { OperationCalls } from "@/lib/providers/provider";
import type { SpendLimiter } from "@/lib/limits/spend-limiter";
import type { Provider } from "@/lib/providers/provider";
import type { Transport } from "@/lib/providers/transport";
import type { UpstreamClient } from "@/lib/providers/upstream-http";
import type { Channel, ChannelType } from "@/lib/routing/channel";
import type { ChannelStates } from "@/lib/routing/channel-states";
import type { PickOptions } from "@/lib/routing/pick-channels";
import type { RoutingStats } from "@/lib/routing/routing-stats";
import type { ModelRoute } from "@/lib/models/model-route";
import type { KeyPools } from "@/lib/routing/key-pool";
import type { SessionAffinity, SessionTurn } from "@/lib/routing/session-affinity";
import type { EndUserLedger } from "@/lib/teams/end-users";
import type { CallState } from "./call-state";
import type { RequestLog } from "./request-log";

/** What the admit, pick and attempt core needs from the process: a small surface tests build in memory. */
export interface CallServices {
  providers: Record<ChannelType, Provider>;
  channels: {
    /** The channels serving `model`, in the order to try them (the model's strategy within each priority). */
    candidates(model: string, options?: PickOptions): Channel[];
    /** Every model an enabled channel serves, with the first channel that does. */
    models(): Map<string, Channel>;
    /** Whether an enabled channel serves `model` but is out of rotation now (a 503, never "does not exist"). */
    outOfRotation(model: string): boolean;
    /** A change another process announced, still loading. */
    readonly settling: Promise<void> | undefined;
    reload(): Promise<void>;
  };
  channelStates: ChannelStates;
  /** Model records (fallbacks, strategy, context window), cached per process; absent for a plain model name. */
  models: { find(name: string): ModelRoute | undefined; readonly settling?: Promise<void> | undefined };
  /** Latency averages and in-flight counts the strategies read (per process). */
  routingStats: RoutingStats;
  channelHealth: { record(channelId: string, sample: { error: string | null; latencyMs: number | null }): void };
  limits: Pick<SpendLimiter, "consumeRequest" | "reserveAll" | "settle">;
  /** Each end user's totals per token, for tokens and teams with end-user windows (absent: not kept). */
  endUsers?: Pick<EndUserLedger, "record">;
  /** The channel's transport, built once per channel version. */
  transportFor(channel: Channel): Transport;
  /** Takes a channel out of rotation after the upstream refused its credentials. */
  autoDisable(channelId: string, reason: string): void;
  /** Channels tried per call, the backoff base between them, and how long a call may wait out a rate-limit cool-down. */
  routing: { maxAttempts: number; backoffMs: number; maxWaitMs: number };
  /** The clock cool-downs are set by (the channel states' own). */
  now(): number;
  /** Each channel's upstream keys: which one an attempt uses, which are refused or cooling. */
  keyPools: KeyPools;
  /** Session pins (SESSION_AFFINITY_TTL). */
  affinity: SessionAffinity;
}

/** One client request as the core sees it, whatever its transport (HTTP or a WebSocket upgrade). */
export interface CallScope {
  /** The request's record: its id names the request in log lines and traces. */
  log: RequestLog;
  /** The call's own state: attempts, charge, hooks, the serving channel, the session. */
  call: CallState;
  token: TokenRecord;
  runtime: CallServices;
  /** The upstream client: the shared pool, or a recorder for the Playground's inspector. */
  upstream: UpstreamClient;
  /** The loop guard's header value for requests this call sends upstream. */
  hops: string;
  request: { signal: AbortSource; headers?: HeaderReader };
  /** The request's session and its pin, once the core has looked it up. */
  sessionTurn?: SessionTurn;
}

/** What one operation brings to the core: its parse is done; the providers' members do the rest. */
export interface CallPlan<O extends Operation> {
  operation: O;
  model: string;
  stream: boolean;
  /** The worst case this request may spend, reserved against quotas before the call. */
  estimate: { inputTokens: number; outputTokens: number };
  /** Only this channel may serve (a continuation of a response it created). */
  pinnedChannelId?: string;
  /** The client's session (requestSession), for session affinity. */
  session?: string;
  /** The operation's input, handed to the member of each channel tried. */
  call: OperationCalls[O][0];
  /**
   * The client format's in-stream error event, for a stream that breaks after it started;
   * undefined for a body that has none (binary), which is then cut.
   */
  renderStreamError(error: GatewayError): string | undefined;
}
