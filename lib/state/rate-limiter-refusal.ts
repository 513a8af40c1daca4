import type { RateLimiterRes } from "rate-limiter-flexible";

// A limiter out of points rejects with a RateLimiterRes; a store that fails rejects with an
// Error. `instanceof RateLimiterRes` cannot tell them apart in console pages: Next bundles its
// own copy of rate-limiter-flexible, while the limiters come from the runtime server.ts
// loaded, so the class a page imports is not the class that was thrown.

/** True when a limiter's rejection means "no points left" (not a store failure). */
export function isRateLimiterRefusal(rejection: unknown): rejection is RateLimiterRes {
  return !(rejection instanceof Error) && typeof (rejection as Partial<RateLimiterRes> | null)?.msBeforeNext === "number";
}
