import { createHash, timingSafeEqual } from "node:crypto";
import { GatewayError } from "@/lib/canonical/gateway-error";

// Every upstream request names the deployments it passed through, this one last. A
// request that comes back carrying this deployment's id, or that has passed the hop
// limit, is refused before it costs anything: a channel pointed at the gateway itself,
// or two gateways routing to each other, would otherwise multiply one request forever.

export const HOPS_HEADER = "x-gateway-hops";
/** Sent with the loop check's own probe (a channel being saved), so its 508 is not traffic. */
export const LOOP_PROBE_HEADER = "x-gateway-loop-probe";

const ID = /^[a-z0-9]{1,32}$/;

/** A stable id of this deployment, the same in all its processes (they share the encryption key). */
export function deploymentId(encryptionKey: Buffer, configured?: string): string {
  if (configured)
    return (
      configured
        .toLowerCase()
        .replace(/[^a-z0-9]/g, "")
        .slice(0, 32) || "gateway"
    );
  return createHash("sha256").update("gateway-deployment\0").update(encryptionKey).digest("hex").slice(0, 16);
}

/** The deployments an incoming request names (only well-formed ids count). */
export function incomingHops(header: string | null): string[] {
  if (!header) return [];
  return header
    .split(",")
    .map((part) => part.trim().toLowerCase())
    .filter((part) => ID.test(part));
}

/** Refuses a request that looped back or passed too many gateways; else the header to send upstream. */
export function checkHops(header: string | null, self: string, maxHops: number): string {
  const hops = incomingHops(header);
  if (hops.includes(self)) {
    throw new GatewayError("loop_detected", "The request came back to the gateway that already forwarded it: a channel's base URL leads back to this deployment.", {
      code: "loop_detected",
    });
  }
  if (hops.length >= maxHops) {
    throw new GatewayError("loop_detected", `The request has already passed through ${hops.length} gateways (the limit is ${maxHops}, GATEWAY_MAX_HOPS).`, {
      code: "loop_detected",
    });
  }
  return [...hops, self].join(",");
}

/**
 * The value this deployment's processes send in LOOP_PROBE_HEADER: derived from the key they
 * share, so a probe sent by one is known by any other, and no caller can forge it.
 */
export function loopProbeMark(encryptionKey: Buffer): string {
  return createHash("sha256").update("gateway-loop-probe\0").update(encryptionKey).digest("hex").slice(0, 32);
}

/** Whether a request is this deployment's own loop probe (asked only once it was refused as a loop). */
export function isOwnLoopProbe(header: string | null, encryptionKey: Buffer): boolean {
  if (!header) return false;
  const expected = Buffer.from(loopProbeMark(encryptionKey));
  const presented = Buffer.from(header.trim());
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}
