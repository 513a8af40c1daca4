import { isGatewayError, type GatewayError } from "@/lib/canonical/gateway-error";

/** What one failed upstream attempt means for routing; decided here, once. */
export interface AttemptOutcome {
  /** Try the next candidate (only ever before the first byte reached the client). */
  failOver: boolean;
  /** The channel is to blame: counts against its circuit and health. */
  channelFault: boolean;
  /** The upstream refused the gateway's own key or account: take the channel out of rotation. */
  disableReason: string | null;
  /** Skip this channel for this model for this long (an upstream Retry-After). */
  coolDownSeconds: number | null;
}

// Upstream statuses that are the channel's problem, not the caller's: a revoked key or
// no credit (401/402/403), a wrong base URL or model map (404), a timeout (408), rate
// limits (429) and every 5xx.
const CHANNEL_STATUSES = new Set([401, 402, 403, 404, 408, 429]);
const CREDENTIAL_STATUSES = new Set([401, 402, 403]);
const NO_CREDIT_CODES = /insufficient_quota|billing|credit/i;
const MAX_COOL_DOWN_SECONDS = 600;

export function classifyAttemptError(thrown: unknown): AttemptOutcome {
  if (!isGatewayError(thrown)) {
    return { failOver: false, channelFault: false, disableReason: null, coolDownSeconds: null };
  }
  const error: GatewayError = thrown;
  const status = error.upstreamStatus;
  if (status === undefined) {
    // Raised by the gateway itself: transport failures and unreadable answers are the upstream's.
    const transport = error.kind === "bad_gateway" || error.kind === "timeout" || error.kind === "overloaded";
    return { failOver: transport, channelFault: transport, disableReason: null, coolDownSeconds: null };
  }
  const noCredit = NO_CREDIT_CODES.test(`${error.code ?? ""} ${error.upstreamType ?? ""}`);
  const channelFault = CHANNEL_STATUSES.has(status) || status >= 500 || noCredit;
  const disable = CREDENTIAL_STATUSES.has(status) || (noCredit && status !== 429) ? `upstream answered HTTP ${status}: ${error.message}` : null;
  const coolDown = status === 429 && error.retryAfterSeconds ? Math.min(error.retryAfterSeconds, MAX_COOL_DOWN_SECONDS) : null;
  return { failOver: channelFault, channelFault, disableReason: disable, coolDownSeconds: coolDown };
}

/** Whether the upstream rejected the gateway's credentials (shown to callers as a 502, never their 401). */
export function isCredentialRejection(error: unknown): boolean {
  if (!isGatewayError(error) || error.upstreamStatus === undefined) return false;
  return CREDENTIAL_STATUSES.has(error.upstreamStatus) || (NO_CREDIT_CODES.test(`${error.code ?? ""} ${error.upstreamType ?? ""}`) && error.upstreamStatus !== 429);
}

/**
 * An upstream 404 about the path rather than the model (every provider names the model
 * when that is what it lacks): the channel's base URL is wrong, not the caller's request.
 */
export function isMissingPath(error: unknown, upstreamModel: string): boolean {
  return isGatewayError(error) && error.upstreamStatus === 404 && !error.message.includes(upstreamModel);
}
