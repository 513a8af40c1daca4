import type { ApiHandler, ApiRequest } from "@/lib/canonical/api-types";
import { GatewayError } from "@/lib/canonical/gateway-error";
import { anthropicFormat } from "@/lib/formats/anthropic";
import { geminiFormat } from "@/lib/formats/gemini";
import { openAIFormat } from "@/lib/formats/openai";
import type { ClientFormat } from "@/lib/gateway/client-format";
import { refuseHandler } from "@/lib/gateway/with-api-key";
import type { Runtime } from "@/lib/runtime";

// A base URL that already ends in the version segment the SDK adds itself
// (`new Anthropic({ baseURL: "http://host/v1" })` calls /v1/v1/messages, the Gemini SDK
// given `/v1beta` calls /v1beta/v1beta/...): a 404 in the caller's own format that names
// the base URL its SDK takes.

const DOUBLED = /^\/(v1|v1beta)\/(v1|v1beta)(\/.*)$/;

/** The refusal for a path with its version segment twice, or undefined for any other path. */
export function doubledVersionRefusal(pathname: string): ApiHandler<Runtime> | undefined {
  const match = DOUBLED.exec(pathname);
  if (!match) return undefined;
  const [, first, second, rest] = match as unknown as [string, string, string, string];
  return (request, runtime) => {
    const sdk = callerSdk(request, second, rest);
    const message = `This path has its API version twice (/${first}/${second}${rest}): ${sdk.advice(requestOrigin(request), first)}`;
    const error = new GatewayError("not_found", message, { code: "doubled_base_path" });
    return refuseHandler(sdk.format, "unknown", error)(request, runtime);
  };
}

interface CallerSdk {
  format: ClientFormat;
  advice(origin: string, segment: string): string;
}

/** Which SDK sent it: by the path after the versions, then by the headers only that SDK sends. */
function callerSdk(request: ApiRequest, version: string, rest: string): CallerSdk {
  const geminiMethod = rest.startsWith("/models/") && (rest.includes(":") || request.method === "POST");
  if (version === "v1beta" || geminiMethod || request.headers.get("x-goog-api-key")) {
    return { format: geminiFormat, advice: (origin, segment) => `the Gemini SDK adds /${version} itself, so set its base URL to ${origin} (without /${segment}).` };
  }
  if (rest.startsWith("/messages") || request.headers.get("anthropic-version")) {
    return { format: anthropicFormat, advice: (origin, segment) => `the Anthropic SDK adds /v1 itself, so set its base URL to ${origin} (without /${segment}).` };
  }
  return { format: openAIFormat, advice: (origin) => `the OpenAI SDK's base URL ends in /v1 once: set it to ${origin}/v1.` };
}

/** The origin the caller reached, as it wrote it (a proxy's `X-Forwarded-Proto` names the scheme). */
function requestOrigin(request: ApiRequest): string {
  const host = request.headers.get("host");
  if (!host) return "the gateway's origin";
  const scheme = request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim() === "https" ? "https" : "http";
  return `${scheme}://${host}`;
}
