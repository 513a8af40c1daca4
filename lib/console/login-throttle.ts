import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";

// Five failed sign-ins per account and address in 15 minutes, then a pause.
const failures = new RateLimiterMemory({ points: 5, duration: 15 * 60, blockDuration: 15 * 60 });

/** Throws a readable message when this email/address pair is blocked. */
export async function assertNotThrottled(key: string): Promise<void> {
  const state = await failures.get(key);
  if (state && state.consumedPoints >= 5) {
    throw new Error(`Too many failed sign-in attempts. Try again in ${Math.ceil(state.msBeforeNext / 60_000)} minutes.`);
  }
}

export async function recordFailure(key: string): Promise<void> {
  try {
    await failures.consume(key);
  } catch (error) {
    if (!(error instanceof RateLimiterRes)) throw error;
  }
}

export async function recordSuccess(key: string): Promise<void> {
  await failures.delete(key);
}
