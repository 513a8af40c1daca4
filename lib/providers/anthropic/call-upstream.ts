import type { HeaderReader } from "@/lib/http/api-types";
import type { CallContext } from "@/lib/providers/provider";
import { postJson } from "@/lib/providers/post-json";
import type { UpstreamResponse } from "@/lib/providers/upstream-http";
import { parseAnthropicError } from "./parse-error";

export const DEFAULT_ANTHROPIC_VERSION = "2023-06-01";

/** POSTs with Anthropic's own auth and version headers (the client's, when relaying). */
export function postAnthropic(path: string, body: unknown, context: CallContext, clientHeaders?: HeaderReader): Promise<UpstreamResponse> {
  const headers: Record<string, string> = {
    "anthropic-version": clientHeaders?.get("anthropic-version") ?? clientHeaders?.get("vendor-version") ?? DEFAULT_ANTHROPIC_VERSION,
  };
  const beta = clientHeaders?.get("anthropic-beta");
  if (beta) headers["anthropic-beta"] = beta;
  if (context.channel.apiKey) headers["x-api-key"] = context.channel.apiKey;
  return postJson(context, path, headers, body, parseAnthropicError);
}
