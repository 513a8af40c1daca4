import type { Readable } from "node:stream";
import { Agent, errors as undiciErrors } from "@/lib/net/undici-core";
import { LightAbort, type AbortSource } from "@/lib/canonical/abort-source";
import { isForOneUse } from "@/lib/canonical/one-use-bytes";
import { GatewayError } from "@/lib/canonical/gateway-error";
import { looksLikeWebPage } from "./describe-body";

// One shared connection pool per upstream origin (undici's Agent keeps a Pool per
// origin). Node's global fetch costs ~4x more CPU per request on this path.

/** Every wait on an upstream is bounded by one of these (milliseconds; 0 turns one off). */
export interface Timeouts {
  /** Opening the connection (TCP and TLS). */
  connectMs: number;
  /** From sending the request to the response headers. */
  firstByteMs: number;
  /** Longest silence between two body chunks. */
  idleMs: number;
  /** The whole exchange, body included. */
  totalMs: number;
}

export interface UpstreamRequest {
  url: string;
  method?: "GET" | "POST";
  headers: Record<string, string>;
  body?: string | Buffer | AsyncIterable<Uint8Array>;
  signal: AbortSource;
  timeouts: Timeouts;
}

/** The parts of an upstream response body the providers use; every failure is a GatewayError. */
export interface UpstreamBody extends AsyncIterable<Uint8Array> {
  text(): Promise<string>;
  /** Parses JSON; a body that is not JSON is a 502 `invalid_upstream_response`. */
  json(): Promise<unknown>;
  arrayBuffer(): Promise<ArrayBuffer>;
  /** The whole body as one Buffer, without the copy an ArrayBuffer of its own needs. */
  bytes(): Promise<Buffer>;
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
  /** One agent per connect timeout in use (undici sets that per agent, not per request). */
  private readonly agents = new Map<number, Agent>();

  constructor(private readonly options: { connections: number }) {}

  private agentFor(connectMs: number): Agent {
    let agent = this.agents.get(connectMs);
    if (!agent) {
      agent = new Agent({
        connections: this.options.connections,
        keepAliveTimeout: 30_000,
        pipelining: 1,
        connect: { timeout: connectMs },
      });
      this.agents.set(connectMs, agent);
    }
    return agent;
  }

  async send(request: UpstreamRequest): Promise<UpstreamResponse> {
    const url = upstreamUrl(request.url);
    // The closures below outlive the answer's headers: they name the request's signal, never
    // the request, whose body would then be kept until the answer ends.
    const { timeouts, signal: callerSignal } = request;
    let signal = callerSignal;
    let timedOut = false;
    let cleanup = () => {};
    if (timeouts.totalMs > 0) {
      // The total deadline is a timer we hold (AbortSignal.timeout can be collected early on
      // Node 20); the call's own signal is a LightAbort (abort-source.ts).
      const own = new LightAbort();
      const abortFromCaller = () => own.abort(callerSignal.reason);
      if (callerSignal.aborted) abortFromCaller();
      else callerSignal.addEventListener("abort", abortFromCaller, { once: true });
      const timer = setTimeout(() => {
        timedOut = true;
        own.abort(new DOMException("The total deadline passed.", "TimeoutError"));
      }, timeouts.totalMs);
      signal = own;
      cleanup = () => {
        clearTimeout(timer);
        callerSignal.removeEventListener("abort", abortFromCaller);
      };
    }
    const mapError = (error: unknown, reading: boolean) =>
      timedOut
        ? new GatewayError("timeout", `The upstream at ${url.host} did not finish within ${timeouts.totalMs} ms.`, {
            code: "upstream_timeout",
            cause: error,
          })
        : mapTransportError(error, url.host, reading);
    const large = isForOneUse(request.body) ? request.body : undefined;
    try {
      const response = await this.agentFor(timeouts.connectMs).request({
        origin: url.origin,
        path: url.path,
        method: request.method ?? "POST",
        headers: large ? { ...request.headers, "content-length": String(large.length) } : request.headers,
        // undici writes any iterable (its types name only streams for it).
        body: large ? (new WrittenOnce(large) as unknown as Readable) : (request.body as string | Buffer | undefined),
        // undici takes any object with addEventListener and `aborted` (its types say AbortSignal).
        signal: signal as AbortSignal,
        headersTimeout: timeouts.firstByteMs,
        bodyTimeout: timeouts.idleMs,
      });
      return {
        status: response.statusCode,
        headers: response.headers,
        body: new MappedBody(response.body as unknown as UndiciBody, (error) => mapError(error, true), cleanup),
      };
    } catch (error) {
      cleanup();
      throw mapError(error, false);
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.agents.values()].map((agent) => agent.close()));
  }
}

/**
 * Bytes made for one call (one-use-bytes.ts) as undici is given them: it keeps the body until
 * the answer ends, and this one lets go of its bytes once undici has taken them to write
 * (their length goes as content-length).
 */
class WrittenOnce implements Iterable<Buffer> {
  #bytes: Buffer | undefined;

  constructor(bytes: Buffer) {
    this.#bytes = bytes;
  }

  *[Symbol.iterator](): Iterator<Buffer> {
    const bytes = this.#bytes;
    this.#bytes = undefined;
    if (bytes) yield bytes;
  }
}

/**
 * An upstream URL's parts: a channel calls few URLs, each parsed once (up to a bound). A URL
 * with a query or credentials (which may carry a key) is parsed each time, never kept.
 */
const parsedUrls = new Map<string, { origin: string; path: string; host: string }>();
const PARSED_URLS = 1024;

function upstreamUrl(raw: string): { origin: string; path: string; host: string } {
  let parsed = parsedUrls.get(raw);
  if (!parsed) {
    const url = new URL(raw);
    parsed = { origin: url.origin, path: url.pathname + url.search, host: url.host };
    if (url.search || url.username || url.password) return parsed;
    if (parsedUrls.size >= PARSED_URLS) parsedUrls.clear();
    parsedUrls.set(raw, parsed);
  }
  return parsed;
}

type UndiciBody = AsyncIterable<Uint8Array> & { destroy(error?: Error): void; dump(): Promise<void>; bytes?(): Promise<Uint8Array> };

/** The whole-body readers every upstream body offers, built on its iteration. */
export abstract class IteratedBody implements UpstreamBody {
  abstract [Symbol.asyncIterator](): AsyncIterator<Uint8Array>;
  abstract dump(): Promise<void>;
  abstract destroy(): void;

  async bytes(): Promise<Buffer> {
    const chunks: Uint8Array[] = [];
    for await (const chunk of this) chunks.push(chunk);
    // One chunk (a small answer) is taken as it is: no copy.
    return chunks.length === 1 ? Buffer.from(chunks[0]!.buffer, chunks[0]!.byteOffset, chunks[0]!.byteLength) : Buffer.concat(chunks);
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const joined = await this.bytes();
    return joined.buffer.slice(joined.byteOffset, joined.byteOffset + joined.byteLength) as ArrayBuffer;
  }

  async text(): Promise<string> {
    return (await this.bytes()).toString("utf8");
  }

  async json(): Promise<unknown> {
    return parseUpstreamJson(await this.text());
  }
}

/** An upstream body whose read errors are typed like connection errors. */
class MappedBody extends IteratedBody {
  private done = false;

  constructor(
    private readonly inner: UndiciBody,
    private readonly mapError: (error: unknown) => unknown,
    private readonly onDone: () => void,
  ) {
    super();
  }

  private finish(): void {
    if (this.done) return;
    this.done = true;
    this.onDone();
  }

  /** The inner body's reads as they are: one promise per read, no generator around it (a relay's stream passes here per read). */
  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    const inner = this.inner[Symbol.asyncIterator]();
    const done = (result: IteratorResult<Uint8Array>) => {
      if (result.done) this.finish();
      return result;
    };
    const failed = (error: unknown): never => {
      this.finish();
      throw this.mapError(error);
    };
    return {
      next: () => inner.next().then(done, failed),
      return: async (value?: unknown) => {
        try {
          await inner.return?.(value);
        } catch (error) {
          failed(error);
        } finally {
          this.finish();
        }
        return { done: true, value: undefined };
      },
    };
  }

  /** A whole answer through undici's own reader: 'data' events, not two layers of async iteration. */
  override async bytes(): Promise<Buffer> {
    if (!this.inner.bytes) return super.bytes();
    try {
      const bytes = await this.inner.bytes();
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    } catch (error) {
      throw this.mapError(error);
    } finally {
      this.finish();
    }
  }

  async dump(): Promise<void> {
    try {
      await this.inner.dump();
    } finally {
      this.finish();
    }
  }

  destroy(): void {
    this.inner.destroy();
    this.finish();
  }
}

/** JSON from an upstream; anything else is the upstream's fault (502), never the caller's. */
export function parseUpstreamJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = looksLikeWebPage(text)
      ? "The upstream serves a web page (HTTP 200, text/html), not an API."
      : "The upstream returned a response the gateway could not read (not JSON).";
    throw new GatewayError("bad_gateway", message, {
      code: "invalid_upstream_response",
      cause: error,
    });
  }
}

const TIMEOUT_CODES = new Set(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT", "UND_ERR_CONNECT_TIMEOUT"]);
const DNS_CODES = new Set(["ENOTFOUND", "EAI_AGAIN", "EAI_FAIL", "EAI_NONAME", "EAI_NODATA"]);
const TLS_CODES = /^(ERR_TLS_|ERR_SSL_|CERT_|EPROTO$|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|UNABLE_TO_(VERIFY|GET)_)/;
const UNROUTABLE_CODES = new Set(["EHOSTUNREACH", "ENETUNREACH", "EHOSTDOWN", "ENETDOWN"]);

/** The error's own code, or its cause's (undici wraps some socket errors). */
function errorCode(error: unknown): string | undefined {
  const own = (error as { code?: unknown } | null)?.code;
  if (typeof own === "string" && !own.startsWith("UND_ERR_SOCKET")) return own;
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  return typeof cause === "string" ? cause : typeof own === "string" ? own : undefined;
}

/** Why a connection could not be made, in words that tell DNS, a closed port, TLS and routing apart. */
function connectFailure(error: unknown, host: string): string {
  const code = errorCode(error) ?? "";
  const hostname = host.replace(/:\d+$/, "");
  if (DNS_CODES.has(code)) return `The upstream host ${hostname} could not be found (DNS lookup failed: ${code}).`;
  if (code === "ECONNREFUSED") return `The upstream at ${host} refused the connection (${code}): nothing listens there.`;
  if (TLS_CODES.test(code)) {
    const detail = (error as { message?: string } | null)?.message ?? code;
    const plain = /wrong version number|packet length too long/i.test(detail) ? ": it may speak plain http, not https" : "";
    return `The TLS connection to the upstream at ${host} failed (${code})${plain}.`;
  }
  if (UNROUTABLE_CODES.has(code)) return `The upstream at ${host} could not be reached: no network route (${code}).`;
  if (code === "ECONNRESET") return `The upstream at ${host} closed the connection before answering (${code}).`;
  return `The upstream at ${host} could not be reached${code ? ` (${code})` : ""}.`;
}

/**
 * Connection failures become 502, timeouts 504, both while connecting and while reading
 * the body; a client abort stays an abort. The messages name the upstream's address: they
 * are for the log row and the console; callers get lib/gateway/caller-error.ts's words.
 */
export function mapTransportError(error: unknown, host: string, reading = false): unknown {
  if (error instanceof GatewayError || (error as { isGatewayError?: boolean } | null)?.isGatewayError) return error;
  const code = (error as { code?: string } | null)?.code;
  const name = (error as { name?: string } | null)?.name;
  if (name === "AbortError" || error instanceof undiciErrors.RequestAbortedError) return error;
  if (code && TIMEOUT_CODES.has(code)) {
    const what = code === "UND_ERR_CONNECT_TIMEOUT" ? "accept the connection" : code === "UND_ERR_HEADERS_TIMEOUT" ? "respond" : "send more of its response";
    return new GatewayError("timeout", `The upstream at ${host} did not ${what} in time.`, { code: "upstream_timeout", cause: error });
  }
  if (reading) {
    return new GatewayError("bad_gateway", `The connection to the upstream at ${host} broke while reading its response.`, {
      code: "upstream_connection_lost",
      cause: error,
    });
  }
  return new GatewayError("bad_gateway", connectFailure(error, host), { code: "upstream_unreachable", cause: error });
}
