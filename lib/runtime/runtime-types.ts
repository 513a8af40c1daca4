import type { Webhooks } from "@/lib/webhooks/webhooks";
import type { TokenCache } from "@/lib/auth/token-cache";
import type { ChannelHealth } from "@/lib/channels/channel-health";
import type { Secrets } from "@/lib/crypto/secrets";
import type { Database } from "@/lib/db/client";
import type { DatabaseKind } from "@/lib/db/database-url";
import type { CallServices } from "@/lib/gateway/call-services";
import type { SpendLimiter } from "@/lib/limits/spend-limiter";
import type { GatewayMetrics } from "@/lib/observability/metrics";
import type { UpstreamExchange } from "@/lib/providers/recording-upstream";
import type { UpstreamHttp } from "@/lib/providers/upstream-http";
import type { ResponseStore } from "@/lib/responses/response-store";
import type { ChannelCache } from "@/lib/channels/channel-cache";
import type { ChannelStates } from "@/lib/routing/channel-states";
import type { LearnedCapabilities } from "@/lib/routing/learned-capabilities";
import type { ModelCache } from "@/lib/models/model-cache";
import type { SharedState } from "@/lib/state/shared-state";
import type { RequestLogStore } from "@/lib/usage/request-log-store";
import type { RequestLogWriter } from "@/lib/usage/request-log-writer";

// The runtime's shape, apart from how it is built (index.ts): what imports it cannot
// form a circle with the code that builds it.

export interface Capture {
  userId: string;
  exchanges: UpstreamExchange[];
}

/** Broadcast topics that make every process reload a cache at once. */
export const INVALIDATE_TOPIC = "invalidate";
export type Invalidation = "tokens" | "channels" | "models" | "webhooks";

/** The process-wide services every handler uses. */
export interface Runtime extends CallServices {
  databaseKind: DatabaseKind;
  database: Database;
  logStore: RequestLogStore;
  secrets: Secrets;
  shared: SharedState;
  tokens: TokenCache;
  channels: ChannelCache;
  models: ModelCache;
  channelStates: ChannelStates;
  /** Operations channels turned out not to serve (learned from their 404s). */
  capabilities: LearnedCapabilities;
  logs: RequestLogWriter;
  metrics: GatewayMetrics;
  limits: SpendLimiter;
  upstream: UpstreamHttp;
  channelHealth: ChannelHealth;
  /** Responses API answers kept for continuation and retrieval. */
  responses: ResponseStore;
  /** Alerts to the admins' webhooks: recorded, signed, retried. */
  webhooks: Webhooks;
  /** Upstream exchanges recorded for the Playground, by request id, readable from any process. */
  captures: {
    save(requestId: string, capture: Capture): Promise<void>;
    find(requestId: string): Promise<Capture | undefined>;
  };
  /** This deployment's id in the loop guard's hop header (the same in all its processes). */
  deploymentId: string;
  /** Tells every process (this one included) to reload a cache; settles once the others have reloaded it (or a few seconds passed). */
  invalidate(what: Invalidation): Promise<void>;
  close(): Promise<void>;
}
