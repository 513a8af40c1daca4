import type { HeaderReader } from "@/lib/canonical/api-types";
import type { AttemptContext } from "@/lib/providers/provider";
import { postJson } from "@/lib/providers/post-json";
import type { UpstreamResponse } from "@/lib/providers/upstream-http";
import { parseAnthropicError } from "./parse-error";

export const DEFAULT_ANTHROPIC_VERSION = "2023-06-01";

/** POSTs to an endpoint of Anthropic's format with its version header (the client's, when relaying). */
export function postAnthropic(path: string, body: unknown, context: AttemptContext, options: { clientHeaders?: HeaderReader; stream?: boolean } = {}): Promise<UpstreamResponse> {
  const { clientHeaders } = options;
  const headers: Record<string, string> = {
    "anthropic-version": clientHeaders?.get("anthropic-version") ?? clientHeaders?.get("vendor-version") ?? DEFAULT_ANTHROPIC_VERSION,
  };
  const beta = clientHeaders?.get("anthropic-beta");
  if (beta) headers["anthropic-beta"] = beta;
  return postJson(context, { path, model: context.upstreamModel, stream: options.stream }, headers, body, parseAnthropicError);
}
