import type { ApiResponse } from "@/lib/canonical/api-types";
import { corsHeaders } from "./cors";

// What both entries (server.ts's node:http path and Next's route files) add to every API
// answer, so the two serve the same bytes.

/** CORS headers for a browser's call to /v1 or /v1beta; the admin API stays same-origin. */
export function addCorsHeaders(apiResponse: ApiResponse, pathname: string, origin: string | null | undefined): ApiResponse {
  if (origin && (pathname.startsWith("/v1/") || pathname.startsWith("/v1beta/"))) Object.assign(apiResponse.headers, corsHeaders(origin));
  return apiResponse;
}

/** The answer to a failure that escaped a handler (already logged by the caller). */
export const INTERNAL_ERROR_BODY = JSON.stringify({ error: { message: "Internal error", type: "server_error", param: null, code: null } });
