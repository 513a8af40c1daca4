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
  /**
   * The upstream refused this model alone (a 403 or 404 that names it): rest the channel for
   * this model this long, and keep its keys, its circuit and its other models in service.
   */
  modelRestSeconds: number | null;
}

// Upstream statuses that are the channel's problem, not the caller's: a revoked key or
// no credit (401/402/403), a wrong base URL or model map (404), a timeout (408), rate
// limits (429) and every 5xx.
const CHANNEL_STATUSES = new Set([401, 402, 403, 404, 408, 429]);
const CREDENTIAL_STATUSES = new Set([401, 402, 403]);
const NO_CREDIT_CODES = /insufficient_quota|billing|credit/i;
const MAX_COOL_DOWN_SECONDS = 600;
/** Statuses an upstream uses for one model it will not serve to this account ("does not have access to model ..."). */
const MODEL_REFUSAL_STATUSES = new Set([403, 404]);
/** How long a channel rests for a model its upstream refused; the next request after it tries again. */
export const MODEL_REST_SECONDS = 60;

/**
 * What a failed attempt means. `upstreamModel` is the name the upstream was sent: an answer
 * that names it is about the model, never about the key (one caller's request for a model
 * the account lacks must not take the channel's keys, or its other models, from everyone).
 */
export function classifyAttemptError(thrown: unknown, upstreamModel?: string): AttemptOutcome {
  if (!isGatewayError(thrown)) {
    return { failOver: false, channelFault: false, disableReason: null, coolDownSeconds: null, modelRestSeconds: null };
  }
  const error: GatewayError = thrown;
  const status = error.upstreamStatus;
  if (status === undefined) {
    // Raised by the gateway itself: transport failures and unreadable answers are the upstream's.
    const transport = error.kind === "bad_gateway" || error.kind === "timeout" || error.kind === "overloaded";
    return { failOver: transport, channelFault: transport, disableReason: null, coolDownSeconds: null, modelRestSeconds: null };
  }
  if (isModelRefusal(error, upstreamModel)) {
    return { failOver: true, channelFault: false, disableReason: null, coolDownSeconds: null, modelRestSeconds: MODEL_REST_SECONDS };
  }
  const noCredit = NO_CREDIT_CODES.test(`${error.code ?? ""} ${error.upstreamType ?? ""}`);
  const channelFault = CHANNEL_STATUSES.has(status) || status >= 500 || noCredit;
  const disable = CREDENTIAL_STATUSES.has(status) || (noCredit && status !== 429) ? `upstream answered HTTP ${status}: ${error.message}` : null;
  const coolDown = status === 429 && error.retryAfterSeconds ? Math.min(error.retryAfterSeconds, MAX_COOL_DOWN_SECONDS) : null;
  return { failOver: channelFault, channelFault, disableReason: disable, coolDownSeconds: coolDown, modelRestSeconds: null };
}

/** A 403 or 404 about one model: its message names the model the upstream was sent (every vendor's does). */
export function isModelRefusal(error: unknown, upstreamModel: string | undefined): boolean {
  if (!isGatewayError(error) || error.upstreamStatus === undefined || !MODEL_REFUSAL_STATUSES.has(error.upstreamStatus)) return false;
  return upstreamModel !== undefined && upstreamModel.length > 0 && namesModel(error.message, upstreamModel);
}

function namesModel(message: string, model: string): boolean {
  return message.toLowerCase().includes(model.toLowerCase());
}

/** Whether the upstream rejected the gateway's credentials (shown to callers as a 502, never their 401). */
export function isCredentialRejection(error: unknown, upstreamModel?: string): boolean {
  if (!isGatewayError(error) || error.upstreamStatus === undefined || isModelRefusal(error, upstreamModel)) return false;
  return CREDENTIAL_STATUSES.has(error.upstreamStatus) || (NO_CREDIT_CODES.test(`${error.code ?? ""} ${error.upstreamType ?? ""}`) && error.upstreamStatus !== 429);
}
