import type { GatewayError } from "@/lib/canonical/gateway-error";
import type { CallContext } from "./provider";
import type { UpstreamResponse } from "./upstream-http";

/**
 * POSTs JSON to `<channel baseUrl><path>` with the provider's own headers; a non-2xx
 * answer is read and turned into a GatewayError by the provider's error parser.
 */
export async function postJson(
  context: CallContext,
  path: string,
  headers: Record<string, string>,
  body: unknown,
  parseError: (status: number, bodyText: string, apiKey: string | undefined) => GatewayError,
): Promise<UpstreamResponse> {
  const { channel } = context;
  const response = await context.http.send({
    url: `${channel.baseUrl.replace(/\/+$/, "")}${path}`,
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
    signal: context.signal,
    timeoutMs: context.timeoutMs,
  });
  if (response.status >= 400) throw parseError(response.status, await response.body.text(), channel.apiKey);
  return response;
}
