import { contentDecoders, decodeContent } from "@/lib/http/content-encoding";
import { collectBody, isAsyncIterable, limitBody, type ApiHandler, type ApiRequest, type ApiResponse } from "@/lib/canonical/api-types";

// Exposes an ApiHandler as a Next.js App Router route handler.

type RouteContext = { params: Promise<Record<string, string | string[]>> };

export function toRouteHandler(handler: ApiHandler) {
  return async (request: Request, context?: RouteContext): Promise<Response> => {
    const rawParams = context?.params ? await context.params : {};
    const params: Record<string, string> = {};
    for (const [key, value] of Object.entries(rawParams)) params[key] = Array.isArray(value) ? value.join("/") : value;
    const apiResponse = await handler(fromWebRequest(request, params));
    return toWebResponse(apiResponse);
  };
}

function fromWebRequest(request: Request, params: Record<string, string>): ApiRequest {
  let bodyPromise: Promise<Buffer> | undefined;
  return {
    method: request.method,
    url: new URL(request.url),
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
