import type { HeaderReader } from "@/lib/canonical/api-types";

// Console cookies authenticate only requests from the console's own pages (no cross-site use).

/** True when a browser request comes from the page's own origin (or from no browser page at all). */
export function isSameOrigin(headers: HeaderReader): boolean {
  const origin = headers.get("origin");
  if (origin === null) {
    const site = headers.get("sec-fetch-site");
    return site === null || site === "same-origin" || site === "none";
  }
  const host = headers.get("x-forwarded-host") ?? headers.get("host");
  try {
    return host !== null && new URL(origin).host === host.split(",")[0]!.trim();
  } catch {
    return false;
  }
}
