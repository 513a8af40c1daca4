import type { TokenRecord } from "@/lib/auth/token-record";
import type { CallScope, CallServices } from "@/lib/gateway/call-services";
import { RequestLog } from "@/lib/gateway/request-log";
import { SpendLimiter } from "@/lib/limits/spend-limiter";
import type { Provider } from "@/lib/providers/provider";
import { providers } from "@/lib/providers/registry";
import type { Transport } from "@/lib/providers/transport";
import { UpstreamHttp } from "@/lib/providers/upstream-http";
import type { Channel, ChannelType } from "@/lib/routing/channel";
import { ChannelStates } from "@/lib/routing/channel-states";
import { KeyPools } from "@/lib/routing/key-pool";
import { pickChannels } from "@/lib/routing/pick-channels";
import { RoutingStats } from "@/lib/routing/routing-stats";
import type { ModelRoute } from "@/lib/models/model-route";
import { SessionAffinity } from "@/lib/routing/session-affinity";
import { MemorySharedState } from "@/lib/state/memory-shared-state";
import type { RequestLogEntry } from "@/lib/usage/request-log-entry";
import { RequestLogWriter } from "@/lib/usage/request-log-writer";

// The call core's services built in memory, the way production builds them from the
// database: tests drive runCall in-process, in milliseconds, through the same interfaces.

export function testChannel(id: string, fields: Partial<Channel> = {}): Channel {
  return {
    id,
    name: id,
    type: "openai",
    baseUrl: "http://127.0.0.1:9/v1",
    apiKey: "sk-upstream",
    models: ["m"],
    modelMap: {},
    priority: 0,
    weight: 1,
    enabled: true,
    autoDisabledReason: null,
    capabilities: [],
    prices: {},
    timeouts: {},
    settings: {},
    ...fields,
  };
}

const testLimits = { models: null, rpm: null, tpm: null, quotaTokens: null, budgetUsd: null, quotaPeriod: "none", windows: [] } as const;
export const testToken: TokenRecord = {
  id: "tok_test",
  name: "test",
  userId: null,
  enabled: true,
  expiresAt: null,
  usedTokens: 0,
  subject: { kind: "token", id: "tok_test" },
  ...testLimits,
  cacheTtlSeconds: null,
  payers: [{ subject: { kind: "token", id: "tok_test" }, limits: testLimits }],
};

export interface InMemoryCore {
  services: CallServices;
  channels: Channel[];
  health: { channelId: string; error: string | null }[];
  disabled: { channelId: string; reason: string }[];
  /** Pool keys the core took out after their upstream refused them. */
  keyDisables: { channelId: string; reason: string }[];
  entries: RequestLogEntry[];
  scope(options?: { signal?: AbortSignal; hops?: string; token?: TokenRecord }): CallScope;
  /** Moves the core's clock (cool-downs, open circuits). */
  advance(ms: number): void;
  close(): Promise<void>;
}

export function inMemoryCore(options: {
  channels: Channel[];
  providers?: Record<string, Provider>;
  maxAttempts?: number;
  maxWaitMs?: number;
  /** Model records (fallbacks, strategy, context window), by name. */
  models?: ModelRoute[];
  affinityTtlSeconds?: number;
}): InMemoryCore {
  // Real time, moved on by `advance`: a call that waits out a cool-down sees it end.
  let offset = 0;
  const now = () => Date.now() + offset;
  const shared = new MemorySharedState();
  const registry = (options.providers ?? providers) as Record<ChannelType, Provider>;
  const http = new UpstreamHttp({ connections: 8 });
  const health: InMemoryCore["health"] = [];
  const disabled: InMemoryCore["disabled"] = [];
  const keyDisables: InMemoryCore["keyDisables"] = [];
  const entries: RequestLogEntry[] = [];
  // By channel object, as production keeps them: each key of a pool has its own.
  const transports = new WeakMap<Channel, Transport>();
  const channelStates = new ChannelStates(shared, { consecutiveFailures: 2, errorRatio: 0.5, windowMs: 60_000, minimumRequests: 10, openMs: 30_000 }, now);
  const services: CallServices = {
    providers: registry,
    channels: {
      candidates: (model, pickOptions) => pickChannels(options.channels, model, pickOptions),
      models: () => new Map(options.channels.flatMap((channel) => channel.models.map((model) => [model, channel] as const))),
      outOfRotation: (model) => options.channels.some((channel) => channel.enabled && channel.autoDisabledReason !== null && channel.models.includes(model)),
      settling: undefined,
      reload: async () => undefined,
    },
    channelStates,
    models: { find: (name) => options.models?.find((route) => route.name === name) },
    routingStats: new RoutingStats(now),
    channelHealth: { record: (channelId, sample) => health.push({ channelId, error: sample.error }) },
    limits: new SpendLimiter(shared, async () => ({ tokens: 0, usd: 0 })),
    transportFor(channel) {
      let transport = transports.get(channel);
      if (!transport) transports.set(channel, (transport = registry[channel.type]!.transport(channel)));
      return transport;
    },
    autoDisable: (channelId, reason) => disabled.push({ channelId, reason }),
    keyPools: new KeyPools(shared, (channelId, _fingerprint, reason) => keyDisables.push({ channelId, reason }), now),
    affinity: new SessionAffinity(shared, options.affinityTtlSeconds ?? 3600, (error) => {
      throw error;
    }),
    routing: { maxAttempts: options.maxAttempts ?? 3, backoffMs: 0, maxWaitMs: options.maxWaitMs ?? 0 },
    now,
  };
  const writer = new RequestLogWriter(
    {
      writeBatch: async () => undefined,
      usageSince: async () => ({ tokens: 0, usd: 0, requests: 0 }),
      sweepBefore: async () => 0,
      countRows: async () => 0,
      usage: async () => [],
      backfillHours: async () => false,
      close: async () => undefined,
    },
    { onError: () => undefined, onUsageWritten: () => undefined, onEntry: (entry) => entries.push(entry), keepRows: true },
  );
  return {
    services,
    channels: options.channels,
    health,
    disabled,
    keyDisables,
    entries,
    scope: (scopeOptions = {}) => {
      const log = new RequestLog(writer, "/test", "openai", "POST");
      return {
        log,
        call: log.call,
        token: scopeOptions.token ?? testToken,
        runtime: services,
        upstream: http,
        hops: scopeOptions.hops ?? "testdeployment",
        request: { signal: scopeOptions.signal ?? new AbortController().signal },
      };
    },
    advance: (ms) => {
      offset += ms;
    },
    close: async () => {
      await http.close();
      await shared.close();
    },
  };
}
