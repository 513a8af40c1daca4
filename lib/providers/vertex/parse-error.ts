import { z } from "zod";
import { GatewayError } from "@/lib/canonical/gateway-error";
import { safeJson } from "@/lib/canonical/json";
import { retryAfterSeconds } from "@/lib/providers/post-json";
import { scrubSecrets } from "@/lib/providers/scrub-secrets";
import type { UpstreamResponse } from "@/lib/providers/upstream-http";

// Vertex answers its own failures (quota, permissions, an unknown model, a bad path) in
// Google's shape, `{"error":{"code","message","status","details"}}`, for Gemini and Claude
// models alike; Claude's own errors come in Anthropic's shape, left to that format's parser.

// Google's errors always carry the HTTP code; Anthropic's (`{"type":"error","error":{"type"}}`) never do.
const googleErrorSchema = z.looseObject({
  error: z.looseObject({
    code: z.number(),
    message: z.string().optional(),
    status: z.string().optional(),
    details: z.array(z.looseObject({ "@type": z.string().optional(), retryDelay: z.string().optional() })).optional(),
  }),
});

/** Google's error as a GatewayError (a 429 RESOURCE_EXHAUSTED fails over; its RetryInfo is the cool-down); undefined for other shapes. */
export function readGoogleError(status: number, bodyText: string, headers: UpstreamResponse["headers"], secrets: string[]): GatewayError | undefined {
  const json = safeJson(bodyText);
  // The JSON-array stream form wraps errors in an array.
  const parsed = googleErrorSchema.safeParse(Array.isArray(json) ? json[0] : json);
  if (!parsed.success) return undefined;
  const { message, status: statusName, details } = parsed.data.error;
  const retryDelay = details?.find((detail) => detail["@type"]?.endsWith("google.rpc.RetryInfo"))?.retryDelay;
  return new GatewayError(status === 503 ? "overloaded" : "upstream_error", scrubSecrets(message || `The upstream returned HTTP ${status}.`, secrets), {
    status,
    code: statusName ?? null,
    upstreamStatus: status,
    retryAfterSeconds: retryAfterSeconds(headers["retry-after"]) ?? retryDelaySeconds(retryDelay),
  });
}

/** A protobuf Duration as JSON ("30s", "1.5s") in whole seconds, rounded up. */
function retryDelaySeconds(delay: string | undefined): number | undefined {
  const match = delay ? /^(\d+(?:\.\d+)?)s$/.exec(delay) : null;
  return match ? Math.ceil(Number(match[1])) : undefined;
}
