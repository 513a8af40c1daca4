import dns from "node:dns";
import { Agent } from "@/lib/net/undici-core";
import { abortSignalOf, type AbortSource } from "@/lib/canonical/abort-source";
import { GatewayError } from "@/lib/canonical/gateway-error";
import { isAllowedHost, isPublicAddress } from "./public-address";

// The one way the gateway fetches a URL a client gave it (an image to inline for an
// upstream that cannot fetch). Only http(s) to public addresses: literal addresses are
// checked before anything is sent, names are checked as they resolve, inside the
// connection's own lookup, so the socket goes to the very address that was checked
// (no second resolution to rebind), and every redirect is checked again.

const MAX_REDIRECTS = 3;

class RefusedAddressError extends Error {}

export interface PublicFetchLimits {
  maxBytes: number;
  timeoutMs: number;
  accept: string;
  signal?: AbortSource;
  /** The request parameter the URL came from, for the error. */
  param: string;
}

type LookupCallback = (error: Error | null, address: string | dns.LookupAddress[], family?: number) => void;

/** dns.lookup, refusing names that resolve to any address that is not public. */
function checkedLookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const list = addresses as dns.LookupAddress[];
    if (!isAllowedHost(hostname) && (list.length === 0 || list.some((entry) => !isPublicAddress(entry.address)))) {
      return callback(new RefusedAddressError(`${hostname} resolves to a non-public address`), []);
    }
    if (options.all) callback(null, list);
    else callback(null, list[0]!.address, list[0]!.family);
  });
}

const agent = new Agent({ connect: { lookup: checkedLookup as never, timeout: 10_000 }, connections: 64 });

const refused = (param: string) =>
  new GatewayError("invalid_request", "The URL does not point to a public http(s) address, so the gateway will not fetch it.", {
    param,
    code: "url_not_allowed",
  });

/** Checks what can be checked without the network: scheme, and a literal address. */
export function checkUrl(raw: string, param: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new GatewayError("invalid_request", "The URL is not valid.", { param, code: "invalid_url" });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw refused(param);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  // WHATWG parsing already turned 2130706433, 0x7f000001, 0177.0.0.1 and 127.1 into dotted form.
  if (/^[\d.]+$/.test(host) || host.includes(":")) {
    if (!isPublicAddress(host) && !isAllowedHost(host)) throw refused(param);
  } else if (/(^|\.)localhost\.?$/.test(host)) {
    if (!isAllowedHost(host)) throw refused(param);
  }
  return url;
}

/** GETs a client-supplied URL under the policy above; the body and its content type. */
export async function fetchPublicUrl(raw: string, limits: PublicFetchLimits): Promise<{ contentType: string; body: Buffer }> {
  let url = checkUrl(raw, limits.param);
  const signal = limits.signal ? AbortSignal.any([abortSignalOf(limits.signal), AbortSignal.timeout(limits.timeoutMs)]) : AbortSignal.timeout(limits.timeoutMs);
  for (let hop = 0; ; hop += 1) {
    let response: Awaited<ReturnType<typeof agent.request>>;
    try {
      response = await agent.request({ origin: url.origin, path: url.pathname + url.search, method: "GET", headers: { accept: limits.accept }, signal });
    } catch (error) {
      if (causes(error).some((cause) => cause instanceof RefusedAddressError)) throw refused(limits.param);
      throw new GatewayError("invalid_request", "The gateway could not download the URL.", { param: limits.param, code: "url_fetch_failed" });
    }
    const location = response.headers.location;
    if (response.statusCode >= 300 && response.statusCode < 400 && location) {
      await response.body.dump();
      if (hop >= MAX_REDIRECTS) throw new GatewayError("invalid_request", "The URL redirects too many times.", { param: limits.param, code: "url_fetch_failed" });
      url = checkUrl(new URL(String(location), url).toString(), limits.param);
      continue;
    }
    if (response.statusCode >= 400) {
      await response.body.dump();
      throw new GatewayError("invalid_request", `Downloading the URL failed with HTTP ${response.statusCode}.`, { param: limits.param, code: "url_fetch_failed" });
    }
    const declared = Number(response.headers["content-length"]);
    if (Number.isFinite(declared) && declared > limits.maxBytes) {
      response.body.destroy();
      throw tooLarge(limits);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of response.body) {
        size += (chunk as Buffer).length;
        if (size > limits.maxBytes) {
          response.body.destroy();
          throw tooLarge(limits);
        }
        chunks.push(chunk as Buffer);
      }
    } catch (error) {
      if (error instanceof GatewayError) throw error;
      throw new GatewayError("invalid_request", "The download of the URL did not complete in time.", { param: limits.param, code: "url_fetch_failed" });
    }
    return { contentType: String(response.headers["content-type"] ?? ""), body: Buffer.concat(chunks) };
  }
}

function tooLarge(limits: PublicFetchLimits): GatewayError {
  return new GatewayError("invalid_request", `The file at the URL is larger than ${limits.maxBytes} bytes.`, { param: limits.param, code: "url_too_large" });
}

function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let current = error; current && chain.length < 5; current = (current as { cause?: unknown }).cause) chain.push(current);
  return chain;
}

/**
 * POSTs a body to a URL an admin gave (a webhook) under the same policy: public addresses
 * only, checked as the name resolves; redirects are not followed. The status, or the reason
 * nothing came back.
 */
export async function postPublicUrl(raw: string, body: string, headers: Record<string, string>, timeoutMs: number): Promise<{ status: number } | { error: string }> {
  let url: URL;
  try {
    url = checkUrl(raw, "url");
  } catch (error) {
    return { error: (error as Error).message };
  }
  try {
    const response = await agent.request({
      origin: url.origin,
      path: url.pathname + url.search,
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.body.dump();
    return { status: response.statusCode };
  } catch (error) {
    if (causes(error).some((cause) => cause instanceof RefusedAddressError)) return { error: "the URL does not resolve to a public address" };
    const cause = causes(error).at(-1) as { code?: string; message?: string } | undefined;
    return { error: cause?.code ?? cause?.message ?? "the request failed" };
  }
}
