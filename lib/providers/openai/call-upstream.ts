import type { CallContext } from "@/lib/providers/provider";
import { postJson } from "@/lib/providers/post-json";
import type { UpstreamResponse } from "@/lib/providers/upstream-http";
import { parseOpenAIError } from "./parse-error";

/** POSTs to an OpenAI-compatible upstream with Bearer auth (when the channel has a key). */
export function postOpenAI(path: string, body: unknown, context: CallContext): Promise<UpstreamResponse> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (context.channel.apiKey) headers.authorization = `Bearer ${context.channel.apiKey}`;
  return postJson(context, path, headers, body, parseOpenAIError);
}
