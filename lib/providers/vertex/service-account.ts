import { createHash } from "node:crypto";
import type { gaxios as Gaxios, JWT } from "google-auth-library";
import { LRUCache } from "lru-cache";
import { z } from "zod";
import { GatewayError } from "@/lib/canonical/gateway-error";
import { safeJson } from "@/lib/canonical/json";

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
  const parsed = serviceAccountKeySchema.safeParse(safeJson(apiKey ?? ""));
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? `${issue.path.join(".")}: ` : "";
  throw credentialError(`The channel's key is not a Google service-account JSON key (${where}${issue?.message ?? "not JSON"}). Paste the whole JSON file of a key created under IAM > Service accounts > Keys.`);
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
  const id = createHash("sha256").update(apiKey ?? "").digest("base64url");
  let source = sources.get(id);
  if (!source) {
    source = serviceAccountTokens(parseServiceAccountKey(apiKey));
    sources.set(id, source);
  }
  return source;
}

/** Access tokens for one service-account key, cached and shared by every call. */
export function serviceAccountTokens(key: ServiceAccountKey): AccessTokens {
  const newClient = async () => {
    const { gaxios, JWT } = await import("google-auth-library");
    return new JWT({
      email: key.client_email,
      key: key.private_key,
      keyId: key.private_key_id,
      scopes: [CLOUD_PLATFORM_SCOPE],
      // The assertion is for the server that redeems it: the key's token_uri.
      additionalClaims: { aud: key.token_uri },
      transporter: tokenTransporter(gaxios, key.token_uri),
      eagerRefreshThresholdMillis: TOKEN_REFRESH_MARGIN_MS,
    });
  };
  let client: Promise<JWT> | undefined;
  let pending: Promise<string> | undefined;
  let current: string | undefined;
  return {
    token() {
      // google-auth-library caches the token and refreshes it ahead of expiry; concurrent
      // first calls share one grant request here as well as there.
      pending ??= (client ??= newClient())
        .then((jwt) => jwt.getAccessToken())
        .then(({ token }) => {
          if (!token) throw credentialError("Google's token endpoint answered without an access token.");
          current = token;
          return token;
        }, (error: unknown) => tokenError(error, key.token_uri))
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
 * A failed grant: refused (a deleted key, a disabled account, a bad signature) is a
 * credential rejection that takes the channel out of rotation, like an upstream 401; a
 * token endpoint that cannot be reached or fails is a transport failure that fails over.
 * Only the endpoint's own error code and description are kept: the request held a signed assertion.
 */
function tokenError(error: unknown, tokenUri: string): never {
  if (error instanceof GatewayError) throw error;
  const response = (error as { response?: { status?: number; data?: unknown } }).response;
  const status = response?.status;
  const host = hostOf(tokenUri);
  // No answer: the request was made and the endpoint could not be reached (DNS, a refused or
  // broken connection, a timeout), or it was never made because the key could not sign it.
  if (status === undefined && !wasRequestMade(error)) {
    throw credentialError("The service account's private key could not sign a token request: the key is damaged.");
  }
  if (status === undefined || status >= 500 || status === 429) {
    const reason = status ? `HTTP ${status}` : (error as { code?: unknown }).code;
    throw new GatewayError("bad_gateway", `The service account's token endpoint ${host} could not be reached${typeof reason === "string" || typeof reason === "number" ? ` (${reason})` : ""}.`, {
      code: "token_unavailable",
    });
  }
  const data = response?.data as { error?: unknown; error_description?: unknown } | undefined;
  const reason = [data?.error, data?.error_description].filter((part) => typeof part === "string").join(": ");
  throw credentialError(`Google refused the service account's token request (HTTP ${status}${reason ? `, ${reason}` : ""}).`);
}

/** gaxios sets `config` on every error of a request it made; a signing failure happens before. */
function wasRequestMade(error: unknown): boolean {
  return typeof error === "object" && error !== null && ("config" in error || (error as { constructor?: { name?: string } }).constructor?.name === "GaxiosError");
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "(unreadable token_uri)";
  }
}

function credentialError(message: string): GatewayError {
  return new GatewayError("upstream_error", message, { status: 401, upstreamStatus: 401, code: "service_account_rejected" });
}
