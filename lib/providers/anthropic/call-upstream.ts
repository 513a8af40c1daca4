import type { HeaderReader } from "@/lib/http/api-types";
import type { CallContext } from "@/lib/providers/provider";
import type { UpstreamResponse } from "@/lib/providers/upstream-http";
import { parseAnthropicError } from "./parse-error";

export const DEFAULT_ANTHROPIC_VERSION = "2023-06-01";

/** POSTs to `<baseUrl><path>` with Anthropic's own auth and version headers. */
export async function postAnthropic(
  path: string,
  body: unknown,
  context: CallContext,
  clientHeaders?: HeaderReader,
): Promise<UpstreamResponse> {
  const { channel } = context;
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "anthropic-version": clientHeaders?.get("anthropic-version") ?? clientHeaders?.get("vendor-version") ?? DEFAULT_ANTHROPIC_VERSION,
  };
  const beta = clientHeaders?.get("anthropic-beta");
  if (beta) headers["anthropic-beta"] = beta;
  if (channel.apiKey) headers["x-api-key"] = channel.apiKey;
  const response = await context.http.send({
    url: `${channel.baseUrl.replace(/\/+$/, "")}${path}`,
    headers,
    body: JSON.stringify(body),
    signal: context.signal,
    timeoutMs: context.timeoutMs,
  });
  if (response.status >= 400) throw parseAnthropicError(response.status, await response.body.text(), channel.apiKey);
  return response;
}
