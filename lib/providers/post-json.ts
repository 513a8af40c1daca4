import type { GatewayError } from "@/lib/canonical/gateway-error";
import type { CallContext } from "./provider";
import type { UpstreamResponse } from "./upstream-http";

/**
 * POSTs JSON to `<channel baseUrl><path>` with the provider's own headers; a non-2xx
 * answer is read and turned into a GatewayError by the provider's error parser, with
 * the upstream's Retry-After kept. A Buffer is JSON already encoded (a relayed body).
 */
export function postJson(
  context: CallContext,
  path: string,
  headers: Record<string, string>,
  body: unknown,
  parseError: ParseError,
): Promise<UpstreamResponse> {
  const encoded = Buffer.isBuffer(body) ? body : JSON.stringify(body);
  return postBody(context, path, { "content-type": "application/json", ...headers }, encoded, parseError);
}

type ParseError = (status: number, bodyText: string, apiKey: string | undefined) => GatewayError;

/** POSTs any body (a multipart stream, say) with the given headers; errors as for postJson. */
export async function postBody(
  context: CallContext,
  path: string,
  headers: Record<string, string>,
  body: string | Buffer | AsyncIterable<Uint8Array>,
  parseError: ParseError,
): Promise<UpstreamResponse> {
  const { channel } = context;
  const response = await context.http.send({
    url: channelUrl(channel.baseUrl, path),
    headers,
    body,
    signal: context.signal,
    timeouts: context.timeouts,
  });
  if (response.status >= 400) {
    const error = parseError(response.status, await response.body.text(), channel.apiKey);
    error.retryAfterSeconds ??= retryAfterSeconds(response.headers["retry-after"]);
    throw error;
  }
  return response;
}

/** GETs JSON from `<channel baseUrl><path>` (a model list); errors as for postJson. */
export async function getJson(
  context: Pick<CallContext, "channel" | "http" | "signal" | "timeouts">,
  path: string,
  headers: Record<string, string>,
  parseError: ParseError,
): Promise<unknown> {
  const { channel } = context;
  const response = await context.http.send({
    url: channelUrl(channel.baseUrl, path),
    method: "GET",
    headers: { accept: "application/json", ...headers },
    signal: context.signal,
    timeouts: context.timeouts,
  });
  if (response.status >= 400) throw parseError(response.status, await response.body.text(), channel.apiKey);
  return response.body.json();
}

function channelUrl(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, "")}${path}`;
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
