import type { CallContext } from "@/lib/providers/provider";
import type { UpstreamResponse } from "@/lib/providers/upstream-http";
import { parseGeminiError } from "./parse-error";

/** POSTs to `<baseUrl>/models/<model>:<method>` with Gemini's own key header. */
export async function postGemini(method: string, body: unknown, context: CallContext, query = ""): Promise<UpstreamResponse> {
  const { channel } = context;
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (channel.apiKey) headers["x-goog-api-key"] = channel.apiKey;
  const model = encodeURIComponent(context.upstreamModel.replace(/^models\//, ""));
  const response = await context.http.send({
    url: `${channel.baseUrl.replace(/\/+$/, "")}/models/${model}:${method}${query}`,
    headers,
    body: JSON.stringify(body),
    signal: context.signal,
    timeoutMs: context.timeoutMs,
  });
  if (response.status >= 400) throw parseGeminiError(response.status, await response.body.text(), channel.apiKey);
  return response;
}
