import { GatewayError } from "@/lib/canonical/gateway-error";
import { safeJson } from "@/lib/canonical/json";
import { describeUnreadableBody } from "@/lib/providers/describe-body";
import { scrubSecrets } from "@/lib/providers/scrub-secrets";
import { geminiErrorSchema } from "./gemini-api";

/** Gemini's refusal of a prompt over the context window: `The input token count (1054016) exceeds the maximum number of tokens allowed (1048576).` */
const TOKEN_LIMIT = /input token count .*exceeds the maximum number of tokens/i;

export function parseGeminiError(status: number, bodyText: string, apiKey: string | undefined): GatewayError {
  let message = `The upstream returned HTTP ${status}.`;
  let statusName: string | undefined;
  const json = safeJson(bodyText);
  // The JSON-array stream form wraps errors in an array.
  const parsed = geminiErrorSchema.safeParse(Array.isArray(json) ? json[0] : json);
  if (parsed.success) {
    message = parsed.data.error.message || message;
    statusName = parsed.data.error.status;
  } else {
    message = describeUnreadableBody(status, bodyText);
  }
  return new GatewayError(status === 503 ? "overloaded" : "upstream_error", scrubSecrets(message, [apiKey]), {
    status,
    code: statusName ?? null,
    upstreamStatus: status,
    contextExceeded: status === 400 && TOKEN_LIMIT.test(message),
  });
}
