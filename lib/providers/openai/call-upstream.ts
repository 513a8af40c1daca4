import type { CallContext } from "@/lib/providers/provider";
import type { UpstreamResponse } from "@/lib/providers/upstream-http";
import { parseOpenAIError } from "./parse-error";

/** POSTs a JSON body to `<baseUrl><path>`; non-2xx answers become GatewayErrors. */
export async function postOpenAI(path: string, body: unknown, context: CallContext): Promise<UpstreamResponse> {
  const { channel } = context;
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
  if (channel.apiKey) headers.authorization = `Bearer ${channel.apiKey}`;
  const response = await context.http.send({
    url: `${channel.baseUrl.replace(/\/+$/, "")}${path}`,
    headers,
    body: JSON.stringify(body),
    signal: context.signal,
    timeoutMs: context.timeoutMs,
  });
  if (response.status >= 400) {
    const text = await response.body.text();
    throw parseOpenAIError(response.status, text, channel.apiKey);
  }
  return response;
}
