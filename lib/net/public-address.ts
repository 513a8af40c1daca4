import ipaddr from "ipaddr.js";
import { env } from "@/lib/env";

// Which addresses the gateway may fetch a client-supplied URL from: public unicast only.
// Loopback, private, link-local (cloud metadata), unique-local, carrier-grade NAT,
// multicast, reserved, and IPv6 forms that embed an IPv4 address (mapped, NAT64, 6to4,
// Teredo) are refused, unless the operator allows a host or range (FETCH_ALLOWED_HOSTS).

type Parsed = ipaddr.IPv4 | ipaddr.IPv6;

const allowedHosts = new Set<string>();
const allowedRanges: [Parsed, number][] = [];
for (const entry of (env.FETCH_ALLOWED_HOSTS ?? "")
  .split(",")
  .map((item) => item.trim().toLowerCase())
  .filter(Boolean)) {
  if (entry.includes("/")) allowedRanges.push(ipaddr.parseCIDR(entry));
  else if (ipaddr.isValid(entry)) allowedRanges.push([ipaddr.parse(entry), ipaddr.parse(entry).kind() === "ipv4" ? 32 : 128]);
  else allowedHosts.add(entry.replace(/\.$/, ""));
}

/** An IPv4 address inside an IPv6 one is judged as that IPv4 address. */
function unwrap(address: Parsed): Parsed {
  if (address.kind() === "ipv6" && (address as ipaddr.IPv6).isIPv4MappedAddress()) return (address as ipaddr.IPv6).toIPv4Address();
  return address;
}

/** True when the operator allowed this address explicitly. */
function allowedAddress(address: Parsed): boolean {
  return allowedRanges.some(([range, bits]) => range.kind() === address.kind() && address.match(range, bits));
}

/** Whether an IP address (any textual form ipaddr.js parses) may be fetched from. */
export function isPublicAddress(text: string): boolean {
  if (!ipaddr.isValid(text)) return false;
  const address = unwrap(ipaddr.parse(text));
  if (allowedAddress(address)) return true;
  return address.range() === "unicast";
}

/** A host name the operator allowed (its addresses are then not checked). */
export function isAllowedHost(hostname: string): boolean {
  return allowedHosts.has(hostname.toLowerCase().replace(/\.$/, ""));
}
