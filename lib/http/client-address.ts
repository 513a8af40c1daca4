import ipaddr from "ipaddr.js";
import { env } from "@/lib/env";

// The address a request really came from: the socket's peer, or, when that peer is a
// proxy the operator trusts (TRUSTED_PROXIES), the nearest untrusted hop named in
// X-Forwarded-For. A client-written X-Forwarded-For is never believed on its own.

/** Set by server.ts on every request (any copy the client sent is overwritten). */
export const CLIENT_ADDRESS_HEADER = "x-gateway-client-address";

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];
const trusted: Range[] = (env.TRUSTED_PROXIES ?? "")
  .split(",")
  .map((entry) => entry.trim())
  .filter(Boolean)
  .map((entry) => (entry.includes("/") ? ipaddr.parseCIDR(entry) : ([ipaddr.parse(entry), ipaddr.parse(entry).kind() === "ipv4" ? 32 : 128] as Range)));

function normalise(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  if (!ipaddr.isValid(address)) return undefined;
  const parsed = ipaddr.parse(address);
  return parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).isIPv4MappedAddress() ? (parsed as ipaddr.IPv6).toIPv4Address() : parsed;
}

function isTrusted(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  return trusted.some(([range, bits]) => range.kind() === address.kind() && address.match(range, bits));
}

export function clientAddress(peer: string | undefined, forwardedFor: string | string[] | undefined): string {
  let current = normalise(peer ?? "");
  if (!current) return "unknown";
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(",") : (forwardedFor ?? "")).split(",").map((hop) => hop.trim());
  while (isTrusted(current) && hops.length > 0) {
    const next = normalise(hops.pop()!);
    if (!next) break;
    current = next;
  }
  return current.toString();
}
