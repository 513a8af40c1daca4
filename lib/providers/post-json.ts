import { encodeJson } from "@/lib/canonical/encode-json";
import { forOneUse } from "@/lib/canonical/one-use-bytes";
import type { GatewayError } from "@/lib/canonical/gateway-error";
import { HOPS_HEADER } from "@/lib/net/loop-guard";
import type { ListContext } from "./provider";
import type { Endpoint, OutgoingRequest } from "./transport";
import type { UpstreamResponse } from "./upstream-http";

type ParseError = (status: number, bodyText: string, apiKey: string | undefined) => GatewayError;

/** What sending needs: a listing has no meter, so the narrowest of the two contexts. */
type SendContext = ListContext;

/**
 * Sends one request through the channel's transport: placed on its URL, credentials and
 * the loop guard's hop header added. A non-2xx answer is read and turned into a
 * GatewayError by the format's error parser, with the upstream's Retry-After kept.
 */
// The request's header object is this call's own (the helpers below build it): headers are
// added to it in place, and each object is built once, without spreads, on this per-request path.
async function sendUpstream(context: SendContext, endpoint: Endpoint, request: Omit<OutgoingRequest, "url">, parseError: ParseError): Promise<UpstreamResponse> {
  const { channel, transport } = context;
  request.headers[HOPS_HEADER] = context.hops;
  const outgoing: OutgoingRequest = { method: request.method, url: transport.url(endpoint), headers: request.headers, body: request.body };
  transport.prepare?.(endpoint, outgoing);
  // Most transports add a header synchronously: no await (and no extra tick) for those.
  const authorized = transport.authorize(outgoing);
  if (authorized) await authorized;
  const response = await context.http.send({
    url: outgoing.url,
    method: outgoing.method,
    headers: outgoing.headers,
    body: outgoing.body,
    signal: context.signal,
    timeouts: context.timeouts,
  });
  if (response.status >= 400) {
    const text = await response.body.text();
    const error = transport.readError?.(response.status, text, response.headers) ?? parseError(response.status, text, channel.apiKey);
    error.retryAfterSeconds ??= retryAfterSeconds(response.headers["retry-after"]);
    throw error;
  }
  return transport.decode ? transport.decode(endpoint, response) : response;
}

/** POSTs JSON; a Buffer is JSON already encoded (a relayed body). */
export function postJson(context: SendContext, endpoint: Endpoint, headers: Record<string, string>, body: unknown, parseError: ParseError): Promise<UpstreamResponse> {
  const encoded = Buffer.isBuffer(body) ? body : forOneUse(encodeJson(body));
  return sendUpstream(context, endpoint, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: encoded }, parseError);
}

/** POSTs any body (a multipart stream, say) with the given headers. */
export function postBody(
  context: SendContext,
  endpoint: Endpoint,
  headers: Record<string, string>,
  body: string | Buffer | AsyncIterable<Uint8Array>,
  parseError: ParseError,
): Promise<UpstreamResponse> {
  return sendUpstream(context, endpoint, { method: "POST", headers: { ...headers }, body }, parseError);
}

/** GETs JSON (a model list). */
export async function getJson(context: SendContext, endpoint: Endpoint, headers: Record<string, string>, parseError: ParseError): Promise<unknown> {
  const response = await sendUpstream(context, endpoint, { method: "GET", headers: { accept: "application/json", ...headers } }, parseError);
  return response.body.json();
}

/** Retry-After as seconds (delta or HTTP date); undefined when absent or unreadable. */
export function retryAfterSeconds(header: string | string[] | undefined, now = Date.now()): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, Math.ceil(seconds));
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}
