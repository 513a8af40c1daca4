import { GatewayError } from "@/lib/canonical/gateway-error";
import { describeUnreadableBody } from "@/lib/providers/describe-body";
import { scrubSecrets } from "@/lib/providers/scrub-secrets";
import { openAIErrorBodySchema } from "./openai-api";

/** Turns an OpenAI-style error response into a GatewayError with the upstream's status. */
export function parseOpenAIError(status: number, bodyText: string, apiKey: string | undefined): GatewayError {
  let message = `The upstream returned HTTP ${status}.`;
  let type: string | undefined;
  let code: string | null = null;
  let param: string | null = null;
  try {
    const parsed = openAIErrorBodySchema.safeParse(JSON.parse(bodyText));
    if (parsed.success) {
      const error = parsed.data.error;
      if (typeof error === "string") message = error;
      else {
        message = error.message || message;
        type = error.type ?? undefined;
        code = error.code == null ? null : String(error.code);
        param = error.param ?? null;
      }
    }
  } catch {
    message = describeUnreadableBody(status, bodyText);
  }
  return new GatewayError(status === 529 || status === 503 ? "overloaded" : "upstream_error", scrubSecrets(message, [apiKey]), {
    status,
    code,
    param,
    upstreamType: type,
    upstreamFormat: "openai",
    upstreamStatus: status,
    contextExceeded: code === "context_length_exceeded",
  });
}
