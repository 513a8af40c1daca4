import { contentDecoders, decodeContent } from "@/lib/http/content-encoding";
import { collectBody, isAsyncIterable, limitBody, type ApiRequest, type ApiResponse } from "@/lib/canonical/api-types";
import { logger } from "@/lib/logger";
import { getRuntime } from "@/lib/runtime";
import { scrubSecrets } from "@/lib/providers/scrub-secrets";
import { addCorsHeaders, INTERNAL_ERROR_BODY } from "./api-response-edge";
import { matchApiRoute } from "./api-routes";
import { parseRequestUrl } from "./serve-api";

// The API behind Next.js's router (`next start`). Every generated route file under app/
// exports this one dispatcher for every method, and it answers from the same route table
// as server.ts's node:http path: the same handlers, 405s with `Allow`, OPTIONS preflights,
// CORS headers and errors in the caller's format. Next's own path parameters are not used.

async function serveWebRequest(request: Request): Promise<Response> {
  const raw = new URL(request.url);
  const url = parseRequestUrl(raw.pathname + raw.search) ?? raw;
  const route = matchApiRoute(request.method, url.pathname);
  // Route files sit only at API paths, every one of which the table answers or refuses.
  if (!route) return new Response(null, { status: 404 });
  try {
    const apiResponse = await route.handler(fromWebRequest(request, url, route.params), await getRuntime());
    return toWebResponse(addCorsHeaders(apiResponse, url.pathname, request.headers.get("origin")));
  } catch (error) {
    logger.error({ err: error, method: request.method, path: scrubSecrets(url.pathname) }, "unhandled API failure");
    return new Response(INTERNAL_ERROR_BODY, { status: 500, headers: { "content-type": "application/json" } });
  }
}

/** The route handlers every generated file under app/ re-exports. */
export const apiRouteHandlers = {
  GET: serveWebRequest,
  HEAD: serveWebRequest,
  POST: serveWebRequest,
  PUT: serveWebRequest,
  PATCH: serveWebRequest,
  DELETE: serveWebRequest,
  OPTIONS: serveWebRequest,
};

function fromWebRequest(request: Request, url: URL, params: Record<string, string>): ApiRequest {
  let bodyPromise: Promise<Buffer> | undefined;
  return {
    method: request.method,
    url,
    headers: request.headers,
    body(limitBytes) {
      bodyPromise ??= collectBody(readWebBody(request, limitBytes));
      return bodyPromise;
    },
    bodyStream: (limitBytes) => readWebBody(request, limitBytes),
    signal: request.signal,
    params,
  };
}

async function* readWebBody(request: Request, limitBytes: number): AsyncGenerator<Uint8Array> {
  if (!request.body) return;
  const raw = request.body as unknown as AsyncIterable<Uint8Array>;
  const decoders = contentDecoders(request.headers.get("content-encoding"));
  if (decoders.length === 0) yield* limitBody(raw, request.headers.get("content-length"), limitBytes);
  else yield* limitBody(decodeContent(raw, decoders), null, limitBytes);
}

export function toWebResponse(apiResponse: ApiResponse): Response {
  const { body } = apiResponse;
  if (!isAsyncIterable(body)) {
    return new Response(body as BodyInit | null, { status: apiResponse.status, headers: apiResponse.headers });
  }
  const iterator = body[Symbol.asyncIterator]();
  const encoder = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done } = await iterator.next();
        if (done) controller.close();
        else controller.enqueue(typeof value === "string" ? encoder.encode(value) : value);
      } catch (error) {
        controller.error(error);
      }
    },
    async cancel() {
      await iterator.return?.();
    },
  });
  return new Response(stream, { status: apiResponse.status, headers: apiResponse.headers });
}
