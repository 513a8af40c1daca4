import { errorHeaders, type GatewayError, type GatewayErrorKind } from "@/lib/canonical/gateway-error";
import { jsonResponse, type ApiResponse } from "@/lib/canonical/api-types";
import { encodeSse } from "@/lib/sse/encode-sse";

const ERROR_TYPE: Record<GatewayErrorKind, string> = {
  invalid_request: "invalid_request_error",
  authentication: "invalid_request_error",
  permission: "invalid_request_error",
  not_found: "invalid_request_error",
  method_not_allowed: "invalid_request_error",
  request_too_large: "invalid_request_error",
  unsupported_media_type: "invalid_request_error",
  rate_limit: "requests",
  quota_exceeded: "insufficient_quota",
  upstream_error: "upstream_error",
  overloaded: "server_error",
  bad_gateway: "upstream_error",
  timeout: "timeout_error",
  loop_detected: "server_error",
  internal: "server_error",
};

const TYPE_BY_STATUS: Record<number, string> = { 429: "requests" };

export function openAIErrorBody(error: GatewayError) {
  const type =
    error.upstreamTypeFor("openai") ??
    (error.kind === "upstream_error" ? (TYPE_BY_STATUS[error.status] ?? (error.status >= 500 ? "server_error" : "invalid_request_error")) : ERROR_TYPE[error.kind]);
  return {
    error: {
      message: error.message,
      type,
      param: error.param,
      code: error.code,
    },
  };
}

export function renderOpenAIError(error: GatewayError): ApiResponse {
  const headers = errorHeaders(error);
  // Anthropic's 529 means overloaded; OpenAI clients know that as 503.
  const status = error.kind === "overloaded" ? 503 : error.status;
  return jsonResponse(status, openAIErrorBody(error), headers);
}

/** The chunk that ends a Chat Completions stream under way (no `[DONE]` after it), relayed or translated. */
export function renderOpenAIStreamError(error: GatewayError): string {
  return encodeSse(JSON.stringify(openAIErrorBody(error)));
}
