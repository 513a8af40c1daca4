import type { CallContext } from "@/lib/providers/provider";
import { postJson } from "@/lib/providers/post-json";
import type { UpstreamResponse } from "@/lib/providers/upstream-http";
import { parseGeminiError } from "./parse-error";

/** POSTs to `/models/<model>:<method>` with Gemini's own key header. */
export function postGemini(method: string, body: unknown, context: CallContext, query = ""): Promise<UpstreamResponse> {
  const headers: Record<string, string> = {};
  if (context.channel.apiKey) headers["x-goog-api-key"] = context.channel.apiKey;
  const model = encodeURIComponent(context.upstreamModel.replace(/^models\//, ""));
  return postJson(context, `/models/${model}:${method}${query}`, headers, body, parseGeminiError);
}
