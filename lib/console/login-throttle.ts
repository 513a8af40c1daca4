import { isRateLimiterRefusal } from "@/lib/state/rate-limiter-refusal";
import type { SharedState } from "@/lib/state/shared-state";

// Failed sign-ins are counted three ways, in the shared state so every process sees them:
// - per account and address: 5 in 15 minutes pauses that pair;
// - per address: 30 in 15 minutes pauses that address for every account (one guesser, many accounts);
// - per account: 50 in an hour pauses the account, but only for addresses that have not
//   signed in to it successfully in the last 30 days, so a distributed guesser cannot lock
//   the real owner out.
// If the counters cannot be read, sign-in is refused (fail closed), never unthrottled.

const RULES = {
  pair: { points: 5, seconds: 15 * 60 },
  address: { points: 30, seconds: 15 * 60 },
  account: { points: 50, seconds: 60 * 60 },
} as const;
const KNOWN_ADDRESS_SECONDS = 30 * 24 * 3600;

type Rule = keyof typeof RULES;

export class SignInThrottledError extends Error {}

const limiter = (shared: SharedState, rule: Rule) => shared.rateLimiter(`login-${rule}`, RULES[rule].points, RULES[rule].seconds);

function keys(email: string, address: string): Record<Rule, string> {
  return { pair: `${email}|${address}`, address, account: email };
}

/** Throws a SignInThrottledError with a readable message when this attempt must wait. */
export async function assertNotThrottled(shared: SharedState, email: string, address: string): Promise<void> {
  let waitMs = 0;
  try {
    const known = (await shared.getJson(`login-known:${email}|${address}`)) !== undefined;
    for (const [rule, key] of Object.entries(keys(email, address)) as [Rule, string][]) {
      if (rule === "account" && known) continue;
      const state = await limiter(shared, rule).get(key);
      if (state && state.consumedPoints >= RULES[rule].points) waitMs = Math.max(waitMs, state.msBeforeNext);
    }
  } catch {
    throw new SignInThrottledError("Sign-in is unavailable for a moment; try again shortly.");
  }
  if (waitMs > 0) throw new SignInThrottledError(`Too many failed sign-in attempts. Try again in ${Math.ceil(waitMs / 60_000)} minutes.`);
}

export async function recordFailure(shared: SharedState, email: string, address: string): Promise<void> {
  for (const [rule, key] of Object.entries(keys(email, address)) as [Rule, string][]) {
    try {
      await limiter(shared, rule).consume(key);
    } catch (error) {
      if (!isRateLimiterRefusal(error)) throw error;
    }
  }
}

export async function recordSuccess(shared: SharedState, email: string, address: string): Promise<void> {
  await limiter(shared, "pair").delete(`${email}|${address}`);
  await shared.putJson(`login-known:${email}|${address}`, 1, KNOWN_ADDRESS_SECONDS);
}
