import type { GatewayError } from "@/lib/canonical/gateway-error";
import type { ApiRequest, ApiResponse } from "@/lib/canonical/api-types";
import type { ClientFormatName } from "@/lib/providers/operation";

/** What the pipeline needs from a client API format before any body is parsed. */
export interface ClientFormat {
  name: ClientFormatName;
  /** The platform key as this format's SDKs send it. */
  extractToken(request: ApiRequest): string | null;
  /** Checks required headers (such as a version header); throws a GatewayError. */
  checkHeaders?(request: ApiRequest): void;
  renderError(error: GatewayError): ApiResponse;
  /** The error event that ends a stream already under way (no `[DONE]`, no `message_stop`). */
  renderStreamError(error: GatewayError): string;
}
