import { errorHeaders, type GatewayError, type GatewayErrorKind } from "@/lib/canonical/gateway-error";
import { jsonResponse, type ApiResponse } from "@/lib/canonical/api-types";
import { encodeSse } from "@/lib/sse/encode-sse";

const ERROR_TYPE: Record<GatewayErrorKind, string> = {
  invalid_request: "invalid_request_error",
  authentication: "authentication_error",
  permission: "permission_error",
  not_found: "not_found_error",
  method_not_allowed: "invalid_request_error",
  request_too_large: "request_too_large",
  unsupported_media_type: "invalid_request_error",
  rate_limit: "rate_limit_error",
  quota_exceeded: "rate_limit_error",
  upstream_error: "api_error",
  overloaded: "overloaded_error",
  bad_gateway: "api_error",
  timeout: "timeout_error",
  loop_detected: "api_error",
  internal: "api_error",
};

const TYPE_BY_STATUS: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  402: "billing_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  504: "timeout_error",
  529: "overloaded_error",
};

/**
 * Anthropic's status for each failure: overloaded is 529. A spent quota is a 429 like in
 * every format (with `x-should-retry: false`, so the SDK does not retry it).
 */
export function anthropicStatus(error: GatewayError): number {
  if (error.kind === "overloaded") return 529;
  return error.status;
}

export function anthropicErrorBody(error: GatewayError) {
  const type =
    error.upstreamTypeFor("anthropic") ??
    (error.kind === "upstream_error" ? (TYPE_BY_STATUS[error.status] ?? (error.status >= 500 ? "api_error" : "invalid_request_error")) : ERROR_TYPE[error.kind]);
  return { type: "error", error: { type, message: error.message } };
}

export function renderAnthropicError(error: GatewayError): ApiResponse {
  const headers = errorHeaders(error);
  return jsonResponse(anthropicStatus(error), anthropicErrorBody(error), headers);
}

/** The `error` event that ends a Messages stream under way (no `message_stop` after it), relayed or translated. */
export function renderAnthropicStreamError(error: GatewayError): string {
  return encodeSse(JSON.stringify(anthropicErrorBody(error)), "error");
}
