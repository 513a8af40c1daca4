import { z } from "zod";
import { parseDuration } from "./duration";

// The one place that reads process.env. Everything else imports `env`.
const optionalString = z.preprocess((value) => (value === "" ? undefined : value), z.string().optional());
const integer = (fallback: number, min = 0) => z.preprocess((value) => (value === undefined || value === "" ? fallback : value), z.coerce.number().int().min(min));

// A duration in s, m, h or d ("30d", "10m"); "0" means never (keep forever, or no sweep).
const duration = (fallback: string) =>
  z
    .preprocess((value) => (value === undefined || value === "" ? fallback : value), z.string())
    .transform((text, context) => {
      if (text.trim() === "0") return 0;
      const ms = parseDuration(text);
      if (ms === undefined || ms === 0) {
        context.addIssue({ code: "custom", message: `"${text}" is not a duration: use a number and s, m, h or d (e.g. "30d", "10m"), or 0` });
        return z.NEVER;
      }
      return ms;
    });

const schema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("production"),
  PORT: integer(3000, 0),
  HOST: z.string().default("0.0.0.0"),
  DATA_DIR: z.string().default("./data"),
  DATABASE_URL: optionalString,
  ADMIN_API_KEY: optionalString.refine((value) => value === undefined || value.length >= 16, {
    message: "must be at least 16 characters",
  }),
  ADMIN_EMAIL: optionalString.pipe(z.email().optional()),
  ADMIN_PASSWORD: optionalString.refine((value) => value === undefined || value.length >= 8, {
    message: "must be at least 8 characters",
  }),
  AUTH_SECRET: optionalString,
  ENCRYPTION_KEY: optionalString,
  // Comma-separated keys channel keys were sealed with before ENCRYPTION_KEY changed.
  ENCRYPTION_KEY_PREVIOUS: optionalString,
  // The HMAC key of stored token hashes; defaults to AUTH_SECRET (set it before rotating that).
  TOKEN_HASH_SECRET: optionalString,
  MAX_BODY_BYTES: integer(20 * 1024 * 1024, 1024),
  MAX_UPLOAD_BYTES: integer(100 * 1024 * 1024, 1024),
  // What one JSON body may hold, so that its work is bounded whatever its size (413 beyond):
  // messages (or contents, or input items), objects and arrays, and values of any kind.
  MAX_REQUEST_MESSAGES: integer(10_000, 1),
  MAX_JSON_OBJECTS: integer(100_000, 1),
  MAX_JSON_VALUES: integer(1_000_000, 1),
  REDIS_URL: optionalString.pipe(
    z
      .string()
      .regex(/^rediss?:\/\//, "must be a redis:// or rediss:// URL")
      .optional(),
  ),
  // Upstream waits (ms). UPSTREAM_TIMEOUT_MS bounds the wait for headers and between body chunks.
  UPSTREAM_TIMEOUT_MS: integer(300_000, 1),
  UPSTREAM_CONNECT_TIMEOUT_MS: integer(10_000, 1),
  UPSTREAM_STREAM_IDLE_TIMEOUT_MS: integer(120_000, 1),
  UPSTREAM_TOTAL_TIMEOUT_MS: integer(0, 0),
  ROUTING_MAX_ATTEMPTS: integer(3, 1),
  ROUTING_BACKOFF_MS: integer(50, 0),
  ROUTING_MAX_WAIT_MS: integer(0, 0),
  // Gateways a request may pass through (this one included) before it is refused as a loop.
  GATEWAY_MAX_HOPS: integer(3, 1),
  // The id upstream requests carry in x-gateway-hops; derived from ENCRYPTION_KEY when unset.
  GATEWAY_DEPLOYMENT_ID: optionalString,
  CIRCUIT_CONSECUTIVE_FAILURES: integer(5, 1),
  CIRCUIT_ERROR_RATIO: z.preprocess((value) => (value === undefined || value === "" ? 0.5 : value), z.coerce.number().gt(0).max(1)),
  CIRCUIT_WINDOW_MS: integer(60_000, 1000),
  CIRCUIT_MIN_REQUESTS: integer(10, 1),
  CIRCUIT_OPEN_MS: integer(30_000, 100),
  CHANNEL_PROBE_INTERVAL_MS: integer(60_000, 100),
  QUOTA_DEFAULT_OUTPUT_TOKENS: integer(1024, 1),
  // The exact response cache's size bound (megabytes of stored answers), in Redis or the database.
  RESPONSE_CACHE_MAX_MB: integer(256, 1),
  // Each open stream holds one: agents keep hundreds open for minutes, and a stream past the
  // limit would wait for another to end before it starts.
  UPSTREAM_CONNECTIONS: integer(2048, 1),
  AUTH_CACHE_TTL_MS: integer(1000, 0),
  LOG_FLUSH_INTERVAL_MS: integer(200, 10),
  // "off": no per-request rows (token totals still counted); what `npm run bench` compares against.
  REQUEST_LOG: z.enum(["on", "off"]).default("on"),
  // Retention (milliseconds after parsing; 0 keeps forever): request log rows (their usage
  // stays in the hourly totals, so quotas hold), stored Responses, Playground inspector captures.
  LOG_RETENTION: duration("30d"),
  RESPONSE_RETENTION: duration("30d"),
  CAPTURE_RETENTION: duration("7d"),
  /** How long the audit log keeps a change (0: forever). */
  AUDIT_RETENTION: duration("365d"),
  // How often one process deletes what has expired; 0 never sweeps.
  RETENTION_SWEEP_INTERVAL: duration("10m"),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  MOCK_STREAM_DELAY_MS: integer(15, 0),
  // How long a session stays on the channel and key of its last turn without a new turn; 0 turns session affinity off.
  SESSION_AFFINITY_TTL: duration("1h"),
  /** The first retry of a webhook delivery; later retries wait multiples of it (up to 48x, then hourly-ish for an hour). */
  WEBHOOK_RETRY_BASE: duration("5s"),
  ANTHROPIC_DEFAULT_MAX_TOKENS: integer(8192, 1),
  // How long a shutdown waits for open requests (streams) before closing them.
  SHUTDOWN_TIMEOUT_MS: integer(30_000, 0),
  HEAP_GROWTH_PERCENT: integer(200, 0),
  // Bearer token for GET /metrics (the admin API key always works too).
  METRICS_TOKEN: optionalString,
  // Send traces to this OTLP/HTTP endpoint (for example http://collector:4318); off when unset.
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalString,
  // Hosts or CIDRs the gateway may fetch client-given URLs (images) from although they are not public.
  FETCH_ALLOWED_HOSTS: optionalString,
  // Proxies whose X-Forwarded-For is believed (comma-separated addresses or CIDRs); none by default.
  TRUSTED_PROXIES: optionalString,
  // Browser origins allowed to call /v1 and /v1beta: "*" or a comma-separated list.
  CORS_ORIGINS: z.string().default("*"),
  OIDC_ISSUER: optionalString.pipe(z.url().optional()),
  OIDC_CLIENT_ID: optionalString,
  OIDC_CLIENT_SECRET: optionalString,
  OIDC_NAME: z.string().default("Single sign-on"),
});

export type Env = z.infer<typeof schema>;

function loadEnv(): Env {
  const result = schema.safeParse(process.env);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`);
    throw new Error(`Invalid environment configuration; set or fix:\n${lines.join("\n")}`);
  }
  return result.data;
}

export const env: Env = loadEnv();
