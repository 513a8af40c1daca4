import type { CallContext } from "@/lib/providers/provider";
import { postBody, postJson } from "@/lib/providers/post-json";
import type { UpstreamResponse } from "@/lib/providers/upstream-http";
import { parseOpenAIError } from "./parse-error";

function authHeaders(context: CallContext): Record<string, string> {
  return context.channel.apiKey ? { authorization: `Bearer ${context.channel.apiKey}` } : {};
}

/** POSTs to an OpenAI-compatible upstream with Bearer auth (when the channel has a key). */
export function postOpenAI(path: string, body: unknown, context: CallContext): Promise<UpstreamResponse> {
  return postJson(context, path, { accept: "application/json", ...authHeaders(context) }, body, parseOpenAIError);
}

/** The same for a body already encoded (a multipart upload). */
export function postOpenAIBody(path: string, contentType: string, body: AsyncIterable<Uint8Array>, context: CallContext): Promise<UpstreamResponse> {
  return postBody(context, path, { "content-type": contentType, ...authHeaders(context) }, body, parseOpenAIError);
}
