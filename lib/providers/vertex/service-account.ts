import { createHash, createPrivateKey } from "node:crypto";
import type { gaxios as Gaxios } from "google-auth-library";
import { LRUCache } from "lru-cache";
import { z } from "zod";
import { GatewayError } from "@/lib/canonical/gateway-error";
import { safeJson } from "@/lib/canonical/json";
import { mapTransportError } from "@/lib/providers/upstream-http";

// A Vertex channel's key is a service-account JSON key. Requests carry an OAuth2 access
// token that the key buys from its token_uri (the JWT bearer grant, RS256), through
// google-auth-library's JWT client: one token for every call of the channel, fetched once
// however many calls start together, and replaced a few minutes before it expires.
//
// Tokens are kept per key, in this process, not per transport: channels holding the same
// key share them, and a channel edited in the console keeps them. Losing them on a restart
// costs one token request. google-auth-library loads with the first token wanted.

const CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform";
/** Where google-auth-library sends the grant; a key may name another token_uri. */
const GOOGLE_TOKEN_URI = "https://oauth2.googleapis.com/token";
/** A token this close to its end is replaced before use. */
export const TOKEN_REFRESH_MARGIN_MS = 5 * 60 * 1000;
const TOKEN_REQUEST_TIMEOUT_MS = 15_000;

const serviceAccountKeySchema = z.looseObject({
  type: z.literal("service_account", { error: 'type must be "service_account"' }),
  client_email: z.string().min(3),
  private_key: z.string().includes("PRIVATE KEY"),
  private_key_id: z.string().optional(),
  project_id: z.string().optional(),
  token_uri: z.url({ protocol: /^https?$/ }).default(GOOGLE_TOKEN_URI),
});

export type ServiceAccountKey = z.infer<typeof serviceAccountKeySchema>;

/** The channel key as a service-account key; the error says what is wrong without quoting it. */
export function parseServiceAccountKey(apiKey: string | undefined): ServiceAccountKey {
  const json = safeJson(apiKey?.trim() ?? "");
  const parsed = serviceAccountKeySchema.safeParse(json);
  if (!parsed.success) throw credentialError(`${serviceAccountKeyProblem(json, parsed.error.issues[0]?.path[0])} ${SERVICE_ACCOUNT_KEY_HELP}`);
  // Checked here, before any request: a key that cannot sign is told apart from a token endpoint that cannot be reached.
  if (!isRsaPrivateKey(parsed.data.private_key)) {
    throw credentialError("The service account's private_key is not an RSA private key (damaged or cut short): paste the whole JSON file of the key again.");
  }
  return parsed.data;
}

const SERVICE_ACCOUNT_KEY_HELP =
  'A Vertex channel takes a service-account key, the whole JSON file as Google gives it: {"type": "service_account", "project_id": "my-project", "private_key": "-----BEGIN PRIVATE KEY-----\\n...", "client_email": "gateway@my-project.iam.gserviceaccount.com", ...}, created under IAM > Service accounts > Keys > Add key > JSON.';

/** What is wrong with a key, in words: never the validator's own text, never the key. */
function serviceAccountKeyProblem(json: unknown, field: PropertyKey | undefined): string {
  if (json === undefined) return "The channel's key is not JSON.";
  if (typeof json !== "object" || json === null || Array.isArray(json)) return "The channel's key is JSON but not an object.";
  const record = json as Record<string, unknown>;
  switch (field) {
    case "type":
      return record.type === undefined
        ? 'The channel\'s key has no "type": it is not a service-account key.'
        : `The channel's key is a "${String(record.type).slice(0, 40)}" key, not a service-account key ("type": "service_account").`;
    case "client_email":
      return "The channel's key has no \"client_email\" (the account's address, ...@....iam.gserviceaccount.com).";
    case "private_key":
      return 'The channel\'s key has no "private_key" holding a PEM key ("-----BEGIN PRIVATE KEY-----...").';
    case "token_uri":
      return 'The channel\'s key has a "token_uri" that is not an http(s) URL.';
    default:
      return "The channel's key is not a Google service-account key.";
  }
}

function isRsaPrivateKey(pem: string): boolean {
  try {
    return createPrivateKey(pem).asymmetricKeyType === "rsa";
  } catch {
    return false;
  }
}

export interface AccessTokens {
  /** A current access token, fetched or refreshed when needed. */
  token(): Promise<string>;
  /** Secrets an upstream error could quote: the current token. */
  secrets(): string[];
  /** Drops the current token (the upstream stopped taking it): the next call buys a new one. */
  reset(): void;
}

const sources = new LRUCache<string, AccessTokens>({ max: 256 });

/** The access tokens of the channel key `apiKey`, shared by every channel and transport holding the same key. */
export function tokensForKey(apiKey: string | undefined): AccessTokens {
  const id = createHash("sha256")
    .update(apiKey ?? "")
    .digest("base64url");
  let source = sources.get(id);
  if (!source) {
    source = serviceAccountTokens(parseServiceAccountKey(apiKey));
    sources.set(id, source);
  }
  return source;
}

/** Access tokens for one service-account key, cached and shared by every call. */
export function serviceAccountTokens(key: ServiceAccountKey): AccessTokens {
  const tokenHost = new URL(key.token_uri).host;
  const newClient = async () => {
    const { gaxios, JWT } = await import("google-auth-library");
    const jwt = new JWT({
      email: key.client_email,
      key: key.private_key,
      keyId: key.private_key_id,
      scopes: [CLOUD_PLATFORM_SCOPE],
      // The assertion is for the server that redeems it: the key's token_uri.
      additionalClaims: { aud: key.token_uri },
      transporter: tokenTransporter(gaxios, key.token_uri),
      eagerRefreshThresholdMillis: TOKEN_REFRESH_MARGIN_MS,
    });
    // gaxios raises its own error class for a request that was sent: answered, or never connected.
    return { jwt, wasSent: (error: unknown) => error instanceof gaxios.GaxiosError };
  };
  let client: ReturnType<typeof newClient> | undefined;
  let pending: Promise<string> | undefined;
  let current: string | undefined;
  return {
    token() {
      // google-auth-library caches the token and refreshes it ahead of expiry; concurrent
      // first calls share one grant request here as well as there.
      pending ??= (client ??= newClient())
        .then(({ jwt, wasSent }) =>
          jwt.getAccessToken().then(
            ({ token }) => {
              if (!token) throw noTokenError(tokenHost);
              current = token;
              return token;
            },
            (error: unknown) => tokenError(error, wasSent(error), tokenHost),
          ),
        )
        .finally(() => (pending = undefined));
      return pending;
    },
    secrets: () => (current ? [current] : []),
    reset() {
      client = undefined;
    },
  };
}

/** A transport for the token request that honours the key's token_uri. */
function tokenTransporter(gaxios: typeof Gaxios, tokenUri: string) {
  const transporter = new gaxios.Gaxios({ timeout: TOKEN_REQUEST_TIMEOUT_MS, retry: false });
  transporter.interceptors.request.add({
    resolved: async (config) => {
      if (config.url.href === GOOGLE_TOKEN_URI && tokenUri !== GOOGLE_TOKEN_URI) config.url = new URL(tokenUri);
      return config;
    },
  });
  return transporter;
}

/**
 * A failed grant. Refused by the endpoint in OAuth's own terms (invalid_grant for a deleted
 * key, a disabled account, a bad signature) is a credential rejection that takes the channel
 * out of rotation, like an upstream 401. A token endpoint that cannot be reached (DNS, a
 * refused connection, a timeout), fails (5xx, 429) or answers something else (a proxy's
 * page) is a transport failure that fails over and leaves the channel enabled; the message
 * names the host. Only the endpoint's own error code and description are kept: the request
 * held a signed assertion.
 */
function tokenError(error: unknown, wasSent: boolean, tokenHost: string): never {
  if (error instanceof GatewayError) throw error;
  const response = (error as { response?: { status?: number; data?: unknown } }).response;
  const status = response?.status;
  if (status === undefined) {
    // Sent and never answered: DNS, a refused or broken connection, a timeout.
    if (wasSent) throw unreachableError(error, tokenHost);
    // A 2xx without a token (a proxy's page): the key that signs was checked when it was read.
    throw noTokenError(tokenHost);
  }
  const data = response?.data as { error?: unknown; error_description?: unknown } | undefined;
  const refusal = status >= 400 && status < 500 && status !== 408 && status !== 429 && typeof data?.error === "string";
  if (!refusal) {
    throw new GatewayError("bad_gateway", `The service account's token endpoint at ${tokenHost} failed (HTTP ${status}).`, { code: "token_unavailable" });
  }
  const reason = [data?.error, data?.error_description].filter((part) => typeof part === "string").join(": ");
  throw credentialError(`Google refused the service account's token request (HTTP ${status}, ${reason}).`);
}

/** The token endpoint could not be reached: a timeout, or the connection failure in the words every upstream's gets. */
function unreachableError(error: unknown, tokenHost: string): GatewayError {
  if ((error as { code?: unknown }).code === "TimeoutError") {
    return new GatewayError("timeout", `The service account's token endpoint at ${tokenHost} did not answer within ${TOKEN_REQUEST_TIMEOUT_MS / 1000} s.`, {
      code: "token_unavailable",
    });
  }
  // The message only: the error's request carries the signed assertion.
  const reason = (mapTransportError(error, tokenHost) as Error).message;
  return new GatewayError("bad_gateway", `The service account's token endpoint could not be reached: ${reason}`, { code: "token_unavailable" });
}

function noTokenError(tokenHost: string): GatewayError {
  return new GatewayError("bad_gateway", `The service account's token endpoint at ${tokenHost} answered without an access token.`, { code: "token_unavailable" });
}

function credentialError(message: string): GatewayError {
  return new GatewayError("upstream_error", message, { status: 401, upstreamStatus: 401, code: "service_account_rejected" });
}
