import { GatewayError } from "@/lib/canonical/gateway-error";
import { safeJson } from "@/lib/canonical/json";
import { describeUnreadableBody } from "@/lib/providers/describe-body";
import { scrubSecrets } from "@/lib/providers/scrub-secrets";
import { anthropicErrorSchema } from "./anthropic-api";

/** Anthropic's refusal of a prompt over the context window: `prompt is too long: 215563 tokens > 200000 maximum`. */
const PROMPT_TOO_LONG = /^prompt is too long\b/i;

export function parseAnthropicError(status: number, bodyText: string, apiKey: string | undefined): GatewayError {
  let message = `The upstream returned HTTP ${status}.`;
  let type: string | undefined;
  const parsed = anthropicErrorSchema.safeParse(safeJson(bodyText));
  if (parsed.success) {
    message = parsed.data.error.message || message;
    type = parsed.data.error.type;
  } else {
    message = describeUnreadableBody(status, bodyText);
  }
  const overloaded = status === 529 || type === "overloaded_error";
  return new GatewayError(overloaded ? "overloaded" : "upstream_error", scrubSecrets(message, [apiKey]), {
    status,
    upstreamType: type,
    upstreamFormat: "anthropic",
    upstreamStatus: status,
    code: type ?? null,
    contextExceeded: status === 400 && PROMPT_TOO_LONG.test(message),
  });
}
