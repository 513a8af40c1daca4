import { toGatewayError } from "@/lib/canonical/gateway-error";
import { renderOpenAIError } from "@/lib/formats/openai/render-error";
import type { ApiResponse } from "@/lib/canonical/api-types";
import { logger } from "@/lib/logger";

/** The admin API answers errors in the same `{error:{message,type,param,code}}` shape as /v1. */
export function renderAdminError(thrown: unknown): ApiResponse {
  const error = toGatewayError(thrown);
  if (error.kind === "internal") logger.error({ err: error.cause ?? error }, "admin request failed");
  return renderOpenAIError(error);
}
