import { LRUCache } from "lru-cache";
import { TokenCache } from "@/lib/auth/token-cache";
import { ChannelHealth } from "@/lib/channels/channel-health";
import { seedAdmin } from "@/lib/auth/seed-admin";
import { loadSecrets, type Secrets } from "@/lib/crypto/secrets";
import { createDatabase, type Database } from "@/lib/db/client";
import { resolveDatabaseLocation } from "@/lib/db/database-url";
import { migrateSqlite } from "@/lib/db/migrate";
import { SqliteRequestLogStore } from "@/lib/db/sqlite-request-log-store";
import { env } from "@/lib/env";
import { RequestRateLimiter } from "@/lib/limits/request-rate-limiter";
import { logger } from "@/lib/logger";
import type { UpstreamExchange } from "@/lib/providers/recording-upstream";
import { UpstreamHttp } from "@/lib/providers/upstream-http";
import { ChannelCache } from "@/lib/routing/channel-cache";
import { RequestLogWriter } from "@/lib/usage/request-log-writer";

export interface Capture {
  userId: string;
  exchanges: UpstreamExchange[];
}

/** The process-wide services every handler uses. */
export interface Runtime {
  database: Database;
  secrets: Secrets;
  tokens: TokenCache;
  channels: ChannelCache;
  logs: RequestLogWriter;
  rateLimiter: RequestRateLimiter;
  upstream: UpstreamHttp;
  channelHealth: ChannelHealth;
  /** Recent upstream exchanges recorded for the Playground, by request id. */
  captures: LRUCache<string, Capture>;
  close(): Promise<void>;
}

async function createRuntime(): Promise<Runtime> {
  const location = resolveDatabaseLocation();
  const applied = migrateSqlite(location.file);
  if (applied.length > 0) logger.info({ migrations: applied }, "database migrated");

  const secrets = loadSecrets();
  const database = createDatabase(location);
  if (await seedAdmin(database, env.ADMIN_EMAIL, env.ADMIN_PASSWORD)) {
    logger.info({ email: env.ADMIN_EMAIL }, "seeded the first admin account");
  }

  const tokens = new TokenCache(database, env.AUTH_CACHE_TTL_MS);
  const channels = new ChannelCache(database, secrets.encryptionKey, (error) =>
    logger.error({ err: error }, "channel reload failed"),
  );
  await channels.start(1000);
  const logs = new RequestLogWriter(new SqliteRequestLogStore(location.file), {
    onError: (error) => logger.error({ err: error }, "request log write failed; will retry"),
    onUsageWritten: (tokenId, used) => tokens.addUsage(tokenId, used),
  });
  logs.start(env.LOG_FLUSH_INTERVAL_MS);
  const upstream = new UpstreamHttp({ connections: env.UPSTREAM_CONNECTIONS });
  const channelHealth = new ChannelHealth(database, (error) => logger.error({ err: error }, "channel health write failed"));
  channelHealth.start(5000);

  return {
    database,
    secrets,
    tokens,
    channels,
    logs,
    rateLimiter: new RequestRateLimiter(),
    upstream,
    channelHealth,
    captures: new LRUCache<string, Capture>({ max: 500, ttl: 30 * 60 * 1000 }),
    async close() {
      channels.stop();
      await logs.stop();
      await channelHealth.stop();
      await upstream.close();
      await database.$disconnect();
    },
  };
}

// Kept on globalThis: Next bundles lib/ separately from server.ts, and both must share
// one database client, one cache and one log queue per process.
const holder = globalThis as typeof globalThis & { __gatewayRuntime?: Promise<Runtime> };

export function getRuntime(): Promise<Runtime> {
  holder.__gatewayRuntime ??= createRuntime();
  return holder.__gatewayRuntime;
}
