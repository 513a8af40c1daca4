import { errorHeaders, type GatewayError } from "@/lib/canonical/gateway-error";
import { jsonResponse, type ApiResponse } from "@/lib/canonical/api-types";
import { encodeSse } from "@/lib/sse/encode-sse";

const STATUS_NAME: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  405: "UNIMPLEMENTED",
  409: "ABORTED",
  413: "INVALID_ARGUMENT",
  429: "RESOURCE_EXHAUSTED",
  499: "CANCELLED",
  500: "INTERNAL",
  501: "UNIMPLEMENTED",
  502: "UNAVAILABLE",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
  508: "ABORTED",
};

/** Gemini's status for each failure: overloaded is 503 UNAVAILABLE. */
export function geminiStatus(error: GatewayError): number {
  return error.kind === "overloaded" || error.status === 529 ? 503 : error.status;
}

export function geminiErrorBody(error: GatewayError) {
  const code = geminiStatus(error);
  return {
    error: {
      code,
      message: error.message,
      status: STATUS_NAME[code] ?? (code >= 500 ? "INTERNAL" : "INVALID_ARGUMENT"),
    },
  };
}

export function renderGeminiError(error: GatewayError): ApiResponse {
  const headers = errorHeaders(error);
  return jsonResponse(geminiStatus(error), geminiErrorBody(error), headers);
}

/**
 * The error that ends a Gemini stream under way, relayed or translated: an SSE event
 * (`alt=sse`), or else the last element of the JSON array, which it closes.
 */
export function renderGeminiStreamError(error: GatewayError, framing: { sse: boolean; arrayOpened?: boolean }): string {
  const json = JSON.stringify(geminiErrorBody(error));
  if (framing.sse) return encodeSse(json);
  return `${framing.arrayOpened === false ? "[" : ",\r\n"}${json}]`;
}
