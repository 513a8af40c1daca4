import { Agent, errors as undiciErrors } from "undici";
import { GatewayError } from "@/lib/canonical/gateway-error";

// One shared connection pool per upstream origin (undici's Agent keeps a Pool per
// origin). Node's global fetch costs ~4x more CPU per request on this path.

export interface UpstreamRequest {
  url: string;
  method?: "GET" | "POST";
  headers: Record<string, string>;
  body?: string | Buffer;
  signal: AbortSignal;
  timeoutMs: number;
}

/** The parts of undici's response body the providers use. */
export interface UpstreamBody extends AsyncIterable<Uint8Array> {
  text(): Promise<string>;
  json(): Promise<unknown>;
  arrayBuffer(): Promise<ArrayBuffer>;
  dump(): Promise<void>;
  destroy(): void;
}

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: UpstreamBody;
}

/** Sends one request upstream. The pool below; a recording wrapper for the Playground. */
export interface UpstreamClient {
  send(request: UpstreamRequest): Promise<UpstreamResponse>;
}

export class UpstreamHttp implements UpstreamClient {
  private readonly agent: Agent;

  constructor(options: { connections: number }) {
    this.agent = new Agent({
      connections: options.connections,
      keepAliveTimeout: 30_000,
      pipelining: 1,
    });
  }

  async send(request: UpstreamRequest): Promise<UpstreamResponse> {
    const url = new URL(request.url);
    try {
      const response = await this.agent.request({
        origin: url.origin,
        path: url.pathname + url.search,
        method: request.method ?? "POST",
        headers: request.headers,
        body: request.body,
        signal: request.signal,
        headersTimeout: request.timeoutMs,
        bodyTimeout: request.timeoutMs,
      });
      return { status: response.statusCode, headers: response.headers, body: response.body as unknown as UpstreamBody };
    } catch (error) {
      throw mapTransportError(error, url.host);
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

const TIMEOUT_CODES = new Set(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT", "UND_ERR_CONNECT_TIMEOUT"]);

/** Connection failures become 502, timeouts 504; a client abort stays an abort. */
export function mapTransportError(error: unknown, host: string): unknown {
  if (error instanceof GatewayError) return error;
  const code = (error as { code?: string } | null)?.code;
  const name = (error as { name?: string } | null)?.name;
  if (name === "AbortError" || error instanceof undiciErrors.RequestAbortedError) return error;
  if (code && TIMEOUT_CODES.has(code)) {
    return new GatewayError("timeout", `The upstream at ${host} did not respond in time.`, {
      code: "upstream_timeout",
      cause: error,
    });
  }
  return new GatewayError("bad_gateway", `The upstream at ${host} could not be reached.`, {
    code: "upstream_unreachable",
    cause: error,
  });
}
