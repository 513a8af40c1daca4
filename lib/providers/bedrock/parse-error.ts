import { GatewayError, type GatewayErrorKind } from "@/lib/canonical/gateway-error";
import { safeJson } from "@/lib/canonical/json";
import { describeUnreadableBody } from "@/lib/providers/describe-body";
import { scrubSecrets } from "@/lib/providers/scrub-secrets";
import type { UpstreamResponse } from "@/lib/providers/upstream-http";

// AWS's errors: the exception's name in the `x-amzn-errortype` header (or `__type` in the
// body, sometimes with a namespace), the text in `message`. Each becomes the status the
// routing core acts on: a credential refusal disables the channel, throttling fails over
// and cools down, a validation error is the caller's.

/** AWS sends no Retry-After with throttling: how long a throttled channel rests for that model. */
export const THROTTLE_COOL_DOWN_SECONDS = 5;

const AWS_ERRORS: Record<string, { status: number; kind: GatewayErrorKind }> = {
  ThrottlingException: { status: 429, kind: "rate_limit" },
  ServiceQuotaExceededException: { status: 429, kind: "rate_limit" },
  ValidationException: { status: 400, kind: "upstream_error" },
  // The account or its credentials: the channel is out until an administrator or the prober clears it.
  AccessDeniedException: { status: 403, kind: "upstream_error" },
  UnrecognizedClientException: { status: 403, kind: "upstream_error" },
  InvalidSignatureException: { status: 403, kind: "upstream_error" },
  SignatureDoesNotMatch: { status: 403, kind: "upstream_error" },
  IncompleteSignatureException: { status: 403, kind: "upstream_error" },
  MissingAuthenticationTokenException: { status: 403, kind: "upstream_error" },
  ExpiredTokenException: { status: 403, kind: "upstream_error" },
  ResourceNotFoundException: { status: 404, kind: "upstream_error" },
  ModelTimeoutException: { status: 408, kind: "upstream_error" },
  ModelErrorException: { status: 502, kind: "upstream_error" },
  ModelNotReadyException: { status: 503, kind: "overloaded" },
  ServiceUnavailableException: { status: 503, kind: "overloaded" },
  InternalServerException: { status: 500, kind: "upstream_error" },
};

/** `ThrottlingException:http://internal.amazon.com/...` or `com.amazonaws.bedrock#ThrottlingException` -> `ThrottlingException`. */
function exceptionName(raw: unknown): string | undefined {
  if (typeof raw !== "string" || !raw) return undefined;
  return raw.split(":")[0]!.split("#").at(-1)!.trim() || undefined;
}

/** An AWS error answer as a GatewayError; undefined when it is not in AWS's shape. */
export function parseBedrockError(status: number, bodyText: string, headers: UpstreamResponse["headers"], secrets: string[]): GatewayError | undefined {
  const json = safeJson(bodyText) as { message?: unknown; Message?: unknown; __type?: unknown } | undefined;
  const header = headers["x-amzn-errortype"];
  const name = exceptionName(Array.isArray(header) ? header[0] : header) ?? exceptionName(json?.__type);
  if (!name) return undefined;
  const text = json?.message ?? json?.Message;
  // A signature mismatch goes on with the canonical request AWS expected (signed headers
  // and all): the first paragraph is the reason, the rest is for a debugger.
  const detail = typeof text === "string" && text ? text.split(/\n\s*\n/)[0]!.trim() : describeUnreadableBody(status, bodyText);
  const known = AWS_ERRORS[name];
  const hint = name === "ResourceNotFoundException" ? " Check the channel's model map and region." : "";
  return new GatewayError(known?.kind ?? "upstream_error", scrubSecrets(`Bedrock ${name}: ${detail}${hint}`, secrets), {
    status: known?.status ?? status,
    upstreamStatus: known?.status ?? status,
    code: name,
    retryAfterSeconds: known?.status === 429 ? THROTTLE_COOL_DOWN_SECONDS : undefined,
  });
}

/** An error answer that is not in AWS's shape (a proxy in front of Bedrock). */
export function parseOtherError(status: number, bodyText: string, apiKey: string | undefined): GatewayError {
  return new GatewayError(status === 503 ? "overloaded" : "upstream_error", scrubSecrets(describeUnreadableBody(status, bodyText), [apiKey]), {
    status,
    upstreamStatus: status,
  });
}

/** AWS's exceptions inside a stream (camel-cased): the status each stands for, and its Anthropic error type. */
const STREAM_EXCEPTIONS: Record<string, { status: number; anthropicType: string }> = {
  throttlingException: { status: 429, anthropicType: "rate_limit_error" },
  serviceUnavailableException: { status: 503, anthropicType: "overloaded_error" },
  modelNotReadyException: { status: 503, anthropicType: "overloaded_error" },
  validationException: { status: 400, anthropicType: "invalid_request_error" },
  modelTimeoutException: { status: 408, anthropicType: "timeout_error" },
  modelStreamErrorException: { status: 502, anthropicType: "api_error" },
  internalServerException: { status: 500, anthropicType: "api_error" },
};

/** The Anthropic error type an Anthropic client gets for an exception inside a Claude stream. */
export function anthropicErrorType(exception: string): string {
  return STREAM_EXCEPTIONS[exception]?.anthropicType ?? "api_error";
}

/**
 * An exception frame as the error of the status it stands for: before anything was
 * streamed it fails the attempt as that status would (throttling fails over and cools down).
 */
export function streamExceptionError(type: string, message: string): GatewayError {
  const status = STREAM_EXCEPTIONS[type]?.status ?? 500;
  return new GatewayError(status === 503 ? "overloaded" : status === 429 ? "rate_limit" : "upstream_error", `Bedrock ${type}: ${message}`, {
    status,
    upstreamStatus: status,
    code: type,
    retryAfterSeconds: status === 429 ? THROTTLE_COOL_DOWN_SECONDS : undefined,
  });
}
