import type { AbortSource } from "@/lib/canonical/abort-source";
import { GatewayError } from "@/lib/canonical/gateway-error";

// A framework-independent request/response pair. API handlers take and return these,
// so the same handler runs behind Next's router (web-adapter.ts) and on the fast
// node:http path in server.ts (node-adapter.ts) without paying for either's extras.

export interface HeaderReader {
  get(name: string): string | null;
}

export interface ApiRequest {
  method: string;
  url: URL;
  headers: HeaderReader;
  /** Reads the whole body; throws a 413 GatewayError past `limitBytes`. */
  body(limitBytes: number): Promise<Buffer>;
  /**
   * The body as it arrives, for routes that pass it on without holding it whole
   * (uploads); the iteration throws a 413 GatewayError past `limitBytes`. Read once,
   * and not together with `body()`.
   */
  bodyStream(limitBytes: number): AsyncIterable<Uint8Array>;
  /** Aborted when the client goes away before the response is complete. */
  signal: AbortSource;
  /** Path parameters captured by the router. */
  params: Record<string, string>;
  /** The caller's address (trusted proxies honoured), worked out only when asked for (the audit log). */
  clientAddress?(): string;
}

export type ResponseBody = string | Uint8Array | AsyncIterable<string | Uint8Array> | null;

export interface ApiResponse {
  status: number;
  headers: Record<string, string>;
  body: ResponseBody;
}

/**
 * An API endpoint. `Services` is what the edge that serves it hands in (the process's
 * runtime, from server.ts's node:http path or Next's route files); an endpoint that needs
 * none leaves it unknown.
 */
export type ApiHandler<Services = unknown> = (request: ApiRequest, services: Services) => Promise<ApiResponse>;

/** The 413 both adapters raise when a body passes the limit. */
export function bodyTooLarge(limitBytes: number): GatewayError {
  // Named by its setting: whoever hits it can ask the operator to raise exactly that.
  return new GatewayError("request_too_large", `Request body exceeds the limit of ${limitBytes} bytes (the gateway's MAX_BODY_BYTES setting).`, {
    code: "request_too_large",
  });
}

/** Enforces a byte limit on a body stream: the declared length first, then the bytes as they come. */
export async function* limitBody(source: AsyncIterable<Uint8Array>, declaredLength: string | null, limitBytes: number): AsyncGenerator<Uint8Array> {
  const declared = Number(declaredLength);
  if (declaredLength !== null && Number.isFinite(declared) && declared > limitBytes) throw bodyTooLarge(limitBytes);
  let size = 0;
  for await (const chunk of source) {
    size += chunk.byteLength;
    if (size > limitBytes) throw bodyTooLarge(limitBytes);
    yield chunk;
  }
}

/** Collects a (limited) body stream into one buffer. */
export async function collectBody(source: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of source) chunks.push(chunk);
  return chunks.length === 1 ? Buffer.from(chunks[0]!) : Buffer.concat(chunks);
}

export function jsonResponse(status: number, value: unknown, headers: Record<string, string> = {}): ApiResponse {
  return {
    status,
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(value),
  };
}

export function isAsyncIterable(value: unknown): value is AsyncIterable<string | Uint8Array> {
  return typeof value === "object" && value !== null && Symbol.asyncIterator in value;
}
