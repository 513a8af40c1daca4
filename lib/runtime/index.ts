import cluster from "node:cluster";
import { TokenCache } from "@/lib/auth/token-cache";
import { ChannelHealth } from "@/lib/channels/channel-health";
import { ChannelProber } from "@/lib/channels/channel-prober";
import { CHANNEL_DISABLED_TOPIC, channelEvent, recordAutoDisable, recordKeyDisable } from "@/lib/channels/channel-service";
import { loadSecrets, type Secrets } from "@/lib/crypto/secrets";
import { prepareDeployment } from "@/lib/deployment/prepare-deployment";
import type { DatabaseKind } from "@/lib/db/database-url";
import { openStorage, type Storage } from "@/lib/db/open-storage";
import type { Provider } from "@/lib/providers/provider";
import { providers as defaultProviders } from "@/lib/providers/registry";
import type { Transport } from "@/lib/providers/transport";
import type { Channel, ChannelType } from "@/lib/routing/channel";
import { deploymentId } from "@/lib/net/loop-guard";
import { env } from "@/lib/env";
import { logRequest } from "@/lib/observability/access-log";
import { GatewayMetrics } from "@/lib/observability/metrics";
import { SpendLimiter } from "@/lib/limits/spend-limiter";
import { logger } from "@/lib/logger";
import { UpstreamHttp } from "@/lib/providers/upstream-http";
import { ChannelCache } from "@/lib/channels/channel-cache";
import { ChannelStates } from "@/lib/routing/channel-states";
import { RoutingStats } from "@/lib/routing/routing-stats";
import { ModelCache } from "@/lib/models/model-cache";
import { KeyPools } from "@/lib/routing/key-pool";
import { LearnedCapabilities } from "@/lib/routing/learned-capabilities";
import { SessionAffinity } from "@/lib/routing/session-affinity";
import { ResponseStore } from "@/lib/responses/response-store";
import { acquireDatabaseLease, releaseDatabaseLease } from "@/lib/retention/database-lease";
import { HourBackfill } from "@/lib/retention/hour-backfill";
import { RetentionSweeper } from "@/lib/retention/retention-sweeper";
import { openSharedState } from "@/lib/state/open-shared-state";
import type { SharedState } from "@/lib/state/shared-state";
import { RequestLogWriter } from "@/lib/usage/request-log-writer";
import { Webhooks } from "@/lib/webhooks/webhooks";
import { BudgetAlerts } from "@/lib/webhooks/budget-alerts";
import { subjectNames } from "@/lib/webhooks/subject-names";
import { sweepAuditBefore } from "@/lib/audit/audit-log";
import { EndUserLedger } from "@/lib/teams/end-users";
import { subjectUsageSince } from "@/lib/teams/subject-usage";
import { INVALIDATE_TOPIC, type Capture, type Runtime } from "./runtime-types";

export type { Capture, Invalidation, Runtime } from "./runtime-types";
export { INVALIDATE_TOPIC };

// Playground captures live in the shared state for CAPTURE_RETENTION ("0": ten years, as good as forever).
const CAPTURE_TTL_SECONDS = Math.ceil((env.CAPTURE_RETENTION || 3650 * 86_400_000) / 1000);

/** What a runtime is built from: production opens them from the environment, tests build their own. */
export interface RuntimeParts {
  storage: Pick<Storage, "database" | "logStore"> & { kind: DatabaseKind };
  secrets: Secrets;
  shared: SharedState;
  /** The upstream connection pool (a loopback-only or recording one in tests). */
  upstream?: UpstreamHttp;
  providers?: Record<ChannelType, Provider>;
  clock?: () => number;
  /** Background work on (reloads, flushes, probes); tests that drive a runtime by hand turn it off. */
  background?: boolean;
}

/** The runtime this process serves with, opened from the environment. */
async function openRuntime(): Promise<Runtime> {
  // A cluster worker's launcher prepared the deployment before forking it.
  if (!cluster.isWorker) {
    const prepared = await prepareDeployment();
    if (prepared.applied.length > 0) logger.info({ migrations: prepared.applied }, "database migrated");
    if (prepared.seededAdmin) logger.info({ email: env.ADMIN_EMAIL }, "seeded the first admin account");
  }
  const storage = await openStorage();
  const secrets = loadSecrets();
  const shared = await openSharedState(env.REDIS_URL);
  return createRuntime({ storage: { database: storage.database, logStore: storage.logStore, kind: storage.location.kind }, secrets, shared });
}

export async function createRuntime(parts: RuntimeParts): Promise<Runtime> {
  const { database, logStore } = parts.storage;
  const { secrets, shared } = parts;
  const background = parts.background ?? true;
  const tokens = new TokenCache(database, env.AUTH_CACHE_TTL_MS, secrets.tokenHashKey);
  const channels = new ChannelCache(database, [secrets.encryptionKey, ...secrets.previousEncryptionKeys], (error) => logger.error({ err: error }, "channel reload failed"));
  if (background) await channels.start(1000);
  else await channels.reload();
  const models = new ModelCache(database, (error) => logger.error({ err: error }, "model reload failed"));
  if (background) await models.start(5000);
  else await models.reload();
  const metrics = new GatewayMetrics({
    logQueueDepth: () => logs.depth,
    circuitStates: () => {
      const now = Date.now();
      return channels.all().map((channel) => {
        const view = channelStates.view(channel.id);
        return { channel: channel.name, open: view.circuit !== "closed" || (view.until ?? 0) > now };
      });
    },
  });
  const logs = new RequestLogWriter(logStore, {
    onError: (error) => logger.error({ err: error }, "request log write failed; will retry"),
    onUsageWritten: (tokenId, used) => tokens.addUsage(tokenId, used),
    keepRows: env.REQUEST_LOG === "on",
    onEntry: (entry) => {
      metrics.observe(entry);
      logRequest(entry);
    },
  });
  if (background) logs.start(env.LOG_FLUSH_INTERVAL_MS);
  const upstream = parts.upstream ?? new UpstreamHttp({ connections: env.UPSTREAM_CONNECTIONS });
  const channelHealth = new ChannelHealth(database, (error) => logger.error({ err: error }, "channel health write failed"));
  if (background) channelHealth.start(5000);
  const webhooks = new Webhooks(database, shared, [secrets.encryptionKey, ...secrets.previousEncryptionKeys], {
    retryBaseMs: env.WEBHOOK_RETRY_BASE,
    now: parts.clock,
    onError: (error) => logger.error({ err: error }, "webhook delivery failed"),
  });
  if (background) webhooks.start(1000);
  const channelStates = new ChannelStates(
    shared,
    {
      consecutiveFailures: env.CIRCUIT_CONSECUTIVE_FAILURES,
      errorRatio: env.CIRCUIT_ERROR_RATIO,
      windowMs: env.CIRCUIT_WINDOW_MS,
      minimumRequests: env.CIRCUIT_MIN_REQUESTS,
      openMs: env.CIRCUIT_OPEN_MS,
    },
    parts.clock,
  );
  // Built once per channel version: a reload makes new Channel objects, and their transports anew.
  const transports = new WeakMap<Channel, Transport>();
  const providers = parts.providers ?? defaultProviders;
  // What a subject spent in its period, summed from the hourly rollups (of the rows written
  // so far; requests in flight are held by their reservations on top).
  // A team's or member's spend is the sum of its tokens' (lib/teams/subject-usage.ts).
  const usageSince = subjectUsageSince(database, logStore);
  const limits = new SpendLimiter(
    shared,
    (subject, _period, since) => usageSince(subject, since),
    (subject, since, models) => usageSince(subject, since, models),
  );
  limits.watchWindows(new BudgetAlerts(shared, webhooks, subjectNames(database), (error) => logger.error({ err: error }, "budget alert failed")));
  const responses = new ResponseStore(database, env.RESPONSE_RETENTION, parts.clock);
  const deployment = deploymentId(secrets.encryptionKey, env.GATEWAY_DEPLOYMENT_ID);
  const retention = new RetentionSweeper({
    stores: [
      { kind: "request_logs", retentionMs: env.LOG_RETENTION, sweepBefore: (before, limit) => logStore.sweepBefore(before, limit) },
      { kind: "responses", retentionMs: env.RESPONSE_RETENTION, sweepBefore: (before, limit) => responses.sweepBefore(before, limit) },
      { kind: "audit", retentionMs: env.AUDIT_RETENTION, sweepBefore: (before, limit) => sweepAuditBefore(database, before, limit) },
    ],
    intervalMs: env.RETENTION_SWEEP_INTERVAL,
    // Per deployment: one Redis may serve several deployments, each with its own database.
    leaseName: `retention:${deployment}`,
    // Redis when processes share it; otherwise the database, which processes sharing one SQLite file have in common.
    acquireLease: (name, holder, ttlMs) => (shared.kind === "redis" ? shared.acquireLease(name, holder, ttlMs) : acquireDatabaseLease(database, name, holder, ttlMs)),
    releaseLease: (name, holder) => (shared.kind === "redis" ? shared.releaseLease(name, holder) : releaseDatabaseLease(database, name, holder)),
    onDeleted: (kind, rows) => metrics.swept(kind, rows),
    now: parts.clock,
  });
  if (background) retention.start();
  // Rows from before the hourly rollups existed are rolled up once, after start-up.
  const backfill = new HourBackfill(logStore);
  if (background) backfill.start();

  shared.subscribe((topic, message) => {
    if (topic === CHANNEL_DISABLED_TOPIC) {
      const { id, reason } = message as { id: string; reason: string };
      channels.markAutoDisabled(id, reason);
    }
    if (topic !== INVALIDATE_TOPIC) return;
    // Answered as promises: the process that announced the change waits until they are loaded.
    if (message === "tokens") tokens.invalidate();
    if (message === "channels") return channels.reloadAnnounced().catch((error) => logger.error({ err: error }, "channel reload failed"));
    if (message === "models") return models.reloadAnnounced().catch((error) => logger.error({ err: error }, "model reload failed"));
    if (message === "webhooks") return webhooks.refresh().catch((error) => logger.error({ err: error }, "webhook reload failed"));
  });

  const runtime: Runtime = {
    databaseKind: parts.storage.kind,
    database,
    logStore,
    secrets,
    shared,
    tokens,
    channels,
    models,
    routingStats: new RoutingStats(),
    channelStates,
    capabilities: new LearnedCapabilities(shared),
    metrics,
    logs,
    limits,
    endUsers: new EndUserLedger(database),
    upstream,
    channelHealth,
    responses,
    webhooks,
    captures: {
      save: (requestId, capture) => shared.putJson(`capture:${requestId}`, capture, CAPTURE_TTL_SECONDS),
      find: async (requestId) => (await shared.getJson(`capture:${requestId}`)) as Capture | undefined,
    },
    invalidate: (what) => shared.announce(INVALIDATE_TOPIC, what),
    providers,
    transportFor(channel) {
      let transport = transports.get(channel);
      if (!transport) {
        transport = providers[channel.type].transport(channel);
        transports.set(channel, transport);
      }
      return transport;
    },
    autoDisable: (channelId, reason) => recordAutoDisable(runtime, channelId, reason),
    keyPools: new KeyPools(shared, (channelId, fingerprint, reason) => recordKeyDisable(runtime, channelId, fingerprint, reason), parts.clock),
    affinity: new SessionAffinity(shared, env.SESSION_AFFINITY_TTL / 1000, (error) => logger.warn({ err: error }, "session pin store failed")),
    routing: { maxAttempts: env.ROUTING_MAX_ATTEMPTS, backoffMs: env.ROUTING_BACKOFF_MS, maxWaitMs: env.ROUTING_MAX_WAIT_MS },
    now: parts.clock ?? Date.now,
    deploymentId: deployment,
    async close() {
      prober.stop();
      channels.stop();
      models.stop();
      await retention.stop();
      await backfill.stop();
      await logs.stop();
      await channelHealth.stop();
      await webhooks.stop();
      await upstream.close();
      await shared.close();
      await database.$disconnect();
    },
  };
  channelStates.onCircuitOpen((channelId, reason) => {
    const event = channelEvent(runtime, "channel.circuit_open", channelId, reason);
    runtime.webhooks.emitOnce(`circuit_open:${channelId}`, env.CIRCUIT_OPEN_MS, event).catch((error) => logger.error({ err: error }, "webhook event failed"));
  });
  const prober = new ChannelProber(runtime, env.CHANNEL_PROBE_INTERVAL_MS);
  if (background) prober.start();
  return runtime;
}

// Kept on globalThis: Next bundles lib/ separately from server.ts, and both must share
// one database client, one cache and one log queue per process.
const holder = globalThis as typeof globalThis & { __gatewayRuntime?: Promise<Runtime> };

export function getRuntime(): Promise<Runtime> {
  holder.__gatewayRuntime ??= openRuntime();
  return holder.__gatewayRuntime;
}
