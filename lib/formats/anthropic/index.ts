import { bearerToken } from "@/lib/canonical/bearer-token";
import { GatewayError } from "@/lib/canonical/gateway-error";
import type { ClientFormat } from "@/lib/gateway/client-format";
import type { ApiRequest } from "@/lib/canonical/api-types";
import { renderAnthropicError, renderAnthropicStreamError } from "./render-error";

const DATE_FORM = /^\d{4}-\d{2}-\d{2}$/;

/** The API version the client asked for: `anthropic-version`, or `vendor-version`. */
export function anthropicVersion(request: ApiRequest): string | null {
  return request.headers.get("anthropic-version") ?? request.headers.get("vendor-version");
}

export const anthropicFormat: ClientFormat = {
  name: "anthropic",
  extractToken: (request) => request.headers.get("x-api-key") ?? bearerToken(request.headers.get("authorization")),
  checkHeaders(request) {
    const version = anthropicVersion(request);
    if (!version) {
      throw new GatewayError("invalid_request", "anthropic-version: header is required (for example 2023-06-01).", {
        param: "anthropic-version",
      });
    }
    if (!DATE_FORM.test(version.trim())) {
      throw new GatewayError("invalid_request", `anthropic-version: '${version}' is not a date of the form YYYY-MM-DD.`, {
        param: "anthropic-version",
      });
    }
  },
  renderError: renderAnthropicError,
  renderStreamError: renderAnthropicStreamError,
};
