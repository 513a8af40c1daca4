import { RateLimiterRes } from "rate-limiter-flexible";
import type { SharedState } from "@/lib/state/shared-state";

// Five failed sign-ins per account and address in 15 minutes, then a pause. Counted in the
// shared state, so every process of a deployment sees the same failures.
const failures = (shared: SharedState) => shared.rateLimiter("login-failures", 5, 15 * 60);

/** Throws a readable message when this email/address pair is blocked. */
export async function assertNotThrottled(shared: SharedState, key: string): Promise<void> {
  const state = await failures(shared).get(key);
  if (state && state.consumedPoints >= 5) {
    throw new Error(`Too many failed sign-in attempts. Try again in ${Math.ceil(state.msBeforeNext / 60_000)} minutes.`);
  }
}

export async function recordFailure(shared: SharedState, key: string): Promise<void> {
  try {
    await failures(shared).consume(key);
  } catch (error) {
    if (!(error instanceof RateLimiterRes)) throw error;
  }
}

export async function recordSuccess(shared: SharedState, key: string): Promise<void> {
  await failures(shared).delete(key);
}
