import type { Limits, Payer } from "@/lib/auth/token-record";
import { CallCharge } from "@/lib/limits/call-charge";
import type { SpendLimiter } from "@/lib/limits/spend-limiter";

const NOTHING = { tokens: 0, usd: 0 };

/**
 * What a cache hit costs: one request against every limit that counts requests (each
 * payer's `rpm` and the `requests` of each window the model counts in), refused with the
 * same 429 a miss would get, and nothing else: no tokens, no dollars, so no quota, budget,
 * tpm or token/USD window limit can refuse it, however far past it the caller is.
 */
export async function chargeCacheHit(limits: Pick<SpendLimiter, "consumeRequest" | "reserveAll" | "settle">, payers: readonly Payer[], model: string): Promise<void> {
  const charge = new CallCharge(
    limits,
    payers.map((payer) => ({ subject: payer.subject, limits: requestLimitsOf(payer.limits) })),
  );
  await charge.admit();
  await charge.reserve(model, NOTHING);
  charge.settle(NOTHING);
}

/** The same limits with only their request counts left (windows keep their ids, so their counters). */
function requestLimitsOf(limits: Limits): Limits {
  return {
    ...limits,
    tpm: null,
    quotaTokens: null,
    budgetUsd: null,
    windows: limits.windows.map((window) => ({ ...window, spec: { ...window.spec, tokens: undefined, usd: undefined } })),
  };
}
