import type { AttemptContext } from "@/lib/providers/provider";
import { postJson } from "@/lib/providers/post-json";
import type { UpstreamResponse } from "@/lib/providers/upstream-http";
import { parseGeminiError } from "./parse-error";

/** POSTs to `/models/<model>:<method>`, Gemini's format, through the channel's transport. */
export function postGemini(method: string, body: unknown, context: AttemptContext, query?: string): Promise<UpstreamResponse> {
  const model = context.upstreamModel.replace(/^models\//, "");
  return postJson(context, { path: `/models/${encodeURIComponent(model)}:${method}`, model, query, stream: method === "streamGenerateContent" }, {}, body, parseGeminiError);
}
