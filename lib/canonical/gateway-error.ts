// Every failure the gateway reports is a GatewayError; each client format renders it
// in its own native error body (lib/formats/<format>/render-error.ts).

export type GatewayErrorKind =
  | "invalid_request" // 400
  | "authentication" // 401
  | "permission" // 403
  | "not_found" // 404
  | "method_not_allowed" // 405
  | "request_too_large" // 413
  | "unsupported_media_type" // 415
  | "rate_limit" // 429
  | "quota_exceeded" // 429, not retryable
  | "upstream_error" // status copied from the upstream
  | "overloaded" // 529 / 503
  | "bad_gateway" // 502
  | "timeout" // 504
  | "loop_detected" // 508: the request came back to this deployment, or passed too many gateways
  | "internal"; // 500

const DEFAULT_STATUS: Record<GatewayErrorKind, number> = {
  invalid_request: 400,
  authentication: 401,
  permission: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_too_large: 413,
  unsupported_media_type: 415,
  rate_limit: 429,
  quota_exceeded: 429,
  upstream_error: 500,
  overloaded: 503,
  bad_gateway: 502,
  timeout: 504,
  loop_detected: 508,
  internal: 500,
};

export interface GatewayErrorOptions {
  status?: number;
  /** The offending request parameter, as a dotted path (`messages.0.role`). */
  param?: string | null;
  /** A machine-readable code, such as `model_not_found` or `invalid_api_key`. */
  code?: string | null;
  /** Seconds the caller should wait before retrying. */
  retryAfterSeconds?: number;
  /** Upstream error `type`, kept when the client speaks the upstream's format. */
  upstreamType?: string;
  /** The wire format `upstreamType` belongs to. */
  upstreamFormat?: "openai" | "anthropic" | "gemini";
  /** Set when an upstream answered with this error: its HTTP status. */
  upstreamStatus?: number;
  /** The upstream refused the prompt as longer than the model's context window (a model with a larger one may serve it). */
  contextExceeded?: boolean;
  cause?: unknown;
}

export class GatewayError extends Error {
  readonly kind: GatewayErrorKind;
  readonly status: number;
  readonly param: string | null;
  readonly code: string | null;
  /** Seconds to wait; an upstream's Retry-After is added after the error is parsed. */
  retryAfterSeconds?: number;
  readonly upstreamStatus?: number;
  readonly upstreamType?: string;
  readonly upstreamFormat?: "openai" | "anthropic" | "gemini";
  readonly contextExceeded: boolean;
  // Marker that survives module duplication between the Next bundle and server.ts.
  readonly isGatewayError = true;

  constructor(kind: GatewayErrorKind, message: string, options: GatewayErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = "GatewayError";
    this.kind = kind;
    this.status = options.status ?? DEFAULT_STATUS[kind];
    this.param = options.param ?? null;
    this.code = options.code ?? null;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.upstreamType = options.upstreamType;
    this.upstreamFormat = options.upstreamFormat;
    this.upstreamStatus = options.upstreamStatus;
    this.contextExceeded = options.contextExceeded ?? false;
  }

  /** The upstream's own error type, if it was written in `format`. */
  upstreamTypeFor(format: "openai" | "anthropic" | "gemini"): string | undefined {
    return this.upstreamFormat === format ? this.upstreamType : undefined;
  }
}

export function isGatewayError(value: unknown): value is GatewayError {
  return typeof value === "object" && value !== null && (value as { isGatewayError?: unknown }).isGatewayError === true;
}

/** Wraps anything thrown into a GatewayError without leaking internals to the caller. */
export function toGatewayError(value: unknown): GatewayError {
  if (isGatewayError(value)) return value;
  return new GatewayError("internal", "The gateway failed to process the request.", { cause: value });
}

/** Headers every format sends with an error: when to retry, and never for a spent quota. */
export function errorHeaders(error: GatewayError): Record<string, string> {
  const headers: Record<string, string> = {};
  if (error.retryAfterSeconds !== undefined) headers["retry-after"] = String(error.retryAfterSeconds);
  if (error.kind === "quota_exceeded") headers["x-should-retry"] = "false";
  return headers;
}
