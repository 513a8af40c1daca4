import type { AttemptContext } from "@/lib/providers/provider";
import { postBody, postJson } from "@/lib/providers/post-json";
import type { UpstreamResponse } from "@/lib/providers/upstream-http";
import { parseOpenAIError } from "./parse-error";

/** POSTs JSON to an endpoint of OpenAI's format, through the channel's transport. */
export function postOpenAI(path: string, body: unknown, context: AttemptContext, stream?: boolean): Promise<UpstreamResponse> {
  return postJson(context, { path, model: context.upstreamModel, stream }, { accept: "application/json" }, body, parseOpenAIError);
}

/** The same for a body already encoded (a multipart upload). */
export function postOpenAIBody(path: string, contentType: string, body: AsyncIterable<Uint8Array>, context: AttemptContext): Promise<UpstreamResponse> {
  return postBody(context, { path, model: context.upstreamModel }, { "content-type": contentType }, body, parseOpenAIError);
}
