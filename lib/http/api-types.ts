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
  /** Aborted when the client goes away before the response is complete. */
  signal: AbortSignal;
  /** Path parameters captured by the router. */
  params: Record<string, string>;
}

export type ResponseBody = string | Uint8Array | AsyncIterable<string | Uint8Array> | null;

export interface ApiResponse {
  status: number;
  headers: Record<string, string>;
  body: ResponseBody;
}

export type ApiHandler = (request: ApiRequest) => Promise<ApiResponse>;

/** The 413 both adapters raise when a body passes the limit. */
export function bodyTooLarge(limitBytes: number): GatewayError {
  return new GatewayError("request_too_large", `Request body exceeds the limit of ${limitBytes} bytes.`, { code: "request_too_large" });
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
