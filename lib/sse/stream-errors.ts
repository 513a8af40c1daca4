import { GatewayError } from "@/lib/canonical/gateway-error";

// A stream that cannot be read, or that stops before its end marker, is the upstream's
// failure (502): never an empty success.

export function malformedStreamError(): GatewayError {
  return new GatewayError("bad_gateway", "The upstream sent a stream event the gateway could not read (not JSON).", {
    code: "invalid_upstream_stream",
  });
}

export function truncatedStreamError(): GatewayError {
  return new GatewayError("bad_gateway", "The upstream stream ended before it was complete.", { code: "upstream_stream_truncated" });
}
