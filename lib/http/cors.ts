import { env } from "@/lib/env";
import type { ApiHandler } from "@/lib/canonical/api-types";

// Browsers may call /v1 and /v1beta from any origin the operator allows (CORS_ORIGINS,
// default any), as the vendors' APIs do, but never with credentials: the console's
// cookie is useless to another site.

const allowedOrigins =
  env.CORS_ORIGINS === "*"
    ? "*"
    : new Set(
        env.CORS_ORIGINS.split(",")
          .map((origin) => origin.trim())
          .filter(Boolean),
      );
const EXPOSED = "x-request-id, retry-after, x-should-retry, openai-processing-ms, x-gateway-warning, x-gateway-cache";
const HEADER_LIST = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+(\s*,\s*[A-Za-z0-9!#$%&'*+.^_`|~-]+)*$/;

/** The CORS headers for a response to a request from `origin`, or none when it is not allowed. */
export function corsHeaders(origin: string | null): Record<string, string> {
  if (!origin) return {};
  if (allowedOrigins === "*") return { "access-control-allow-origin": "*", "access-control-expose-headers": EXPOSED };
  if (!allowedOrigins.has(origin)) return {};
  return { "access-control-allow-origin": origin, "access-control-expose-headers": EXPOSED, vary: "origin" };
}

/** Answers a browser's preflight for any API path; the real request is checked as usual. */
export const handlePreflight: ApiHandler = async (request) => {
  const allowed = corsHeaders(request.headers.get("origin"));
  const requested = request.headers.get("access-control-request-headers")?.trim() ?? "";
  const headers: Record<string, string> = { ...allowed, "access-control-max-age": "86400" };
  if (allowed["access-control-allow-origin"]) {
    headers["access-control-allow-methods"] = "GET, POST, DELETE, OPTIONS";
    // Echoed only when it is a plain list of header names: nothing else is reflected.
    if (HEADER_LIST.test(requested)) headers["access-control-allow-headers"] = requested;
  }
  return { status: 204, headers, body: null };
};
