import { GatewayError, isGatewayError } from "@/lib/canonical/gateway-error";

// A transport failure's own message names the upstream's address (for the log row's
// attempts and the console). Token holders get these words instead, with the request id
// an administrator finds the details under.

const CALLER_WORDS: Record<string, (requestId: string) => string> = {
  upstream_unreachable: (id) => `The upstream for this model could not be reached (request id ${id}).`,
  upstream_timeout: (id) => `The upstream for this model did not answer in time (request id ${id}).`,
  upstream_connection_lost: (id) => `The connection to the upstream for this model broke while reading its answer (request id ${id}).`,
};

export function forCaller(error: unknown, requestId: string): unknown {
  if (!isGatewayError(error) || !error.code) return error;
  const words = CALLER_WORDS[error.code];
  if (!words) return error;
  return new GatewayError(error.kind, words(requestId), {
    status: error.status,
    code: error.code,
    retryAfterSeconds: error.retryAfterSeconds,
    cause: error,
  });
}
