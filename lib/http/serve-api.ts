import type { Runtime } from "@/lib/runtime";
import type { IncomingMessage, ServerResponse } from "node:http";
import { logger } from "@/lib/logger";
import { scrubSecrets } from "@/lib/providers/scrub-secrets";
import { matchApiRoute } from "./api-routes";
import { addCorsHeaders, INTERNAL_ERROR_BODY } from "./api-response-edge";
import { toApiRequest, writeApiResponse } from "./node-adapter";

const BASE = "http://gateway.local";

/**
 * The request URL with repeated slashes collapsed (`//v1/models` from a base URL that
 * ends in `/`), or undefined when it cannot be parsed. Collapsing first matters: `//host/x`
 * would otherwise parse as a host name.
 */
export function parseRequestUrl(raw: string | undefined): URL | undefined {
  const target = raw ?? "/";
  const queryAt = target.indexOf("?");
  const path = queryAt === -1 ? target : target.slice(0, queryAt);
  const normalised = path.replace(/\/{2,}/g, "/") + (queryAt === -1 ? "" : target.slice(queryAt));
  if (!normalised.startsWith("/")) return undefined;
  try {
    // Absolute: a relative URL parses its base again each time.
    return new URL(`${BASE}${normalised}`);
  } catch {
    return undefined;
  }
}

/**
 * Serves an API path on the fast node:http path; returns false for paths Next serves.
 * Never throws: a failure that escapes a handler is logged and answered with a 500.
 */
export function serveApi(request: IncomingMessage, response: ServerResponse, url: URL, runtime: Runtime): boolean {
  const route = matchApiRoute(request.method ?? "GET", url.pathname);
  if (!route) return false;
  route
    .handler(toApiRequest(request, response, url, route.params), runtime)
    .then((apiResponse) => writeApiResponse(response, addCorsHeaders(apiResponse, url.pathname, request.headers.origin)))
    .catch((error: unknown) => {
      logger.error({ err: error, method: request.method, path: scrubSecrets(url.pathname) }, "unhandled API failure");
      if (response.headersSent) {
        response.destroy();
        return;
      }
      response.writeHead(500, { "content-type": "application/json" });
      response.end(INTERNAL_ERROR_BODY);
    });
  return true;
}
