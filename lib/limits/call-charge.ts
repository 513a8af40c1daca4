import type { Payer } from "@/lib/auth/token-record";
import type { Reservation, Spend, SpendLimiter } from "./spend-limiter";
import { logger } from "@/lib/logger";

const NOTHING: Spend = { tokens: 0, usd: 0 };

/**
 * What one call holds against every set of limits that binds it (the token's own and its
 * owner's), for the model it is about to be served by: reserved before the first attempt,
 * moved to a fallback model before that model is tried (its price, its windows), and settled
 * once with what was really spent. A fallback that does not fit is refused before any upstream
 * call, so no path of a call can spend past a limit.
 */
export class CallCharge {
  private held: Reservation[] = [];
  private heldFor: { model: string; wanted: Spend } | undefined;
  private settled = false;

  constructor(
    private readonly limits: Pick<SpendLimiter, "consumeRequest" | "reserveAll" | "settle">,
    private readonly payers: readonly Payer[],
    /** Told what the call spent once it settles (an end user's totals). */
    private readonly onSettle?: (spend: Spend) => void,
  ) {}

  /** One request against each payer's requests-per-minute. */
  async admit(): Promise<void> {
    for (const payer of this.payers) await this.limits.consumeRequest(payer.subject, payer.limits);
  }

  /** Holds the worst case of serving `model` against every payer's limits; all or none. */
  async reserve(model: string, wanted: Spend): Promise<void> {
    this.held = await this.limits.reserveAll(this.payers, wanted, model);
    this.heldFor = { model, wanted };
  }

  /**
   * Moves the hold to a fallback model: what was held for the previous model is given back,
   * then the fallback's worst case is held. When it does not fit, the previous hold is taken
   * again (as far as it still fits) and the limit's error is thrown.
   */
  async moveTo(model: string, wanted: Spend): Promise<void> {
    const previous = this.heldFor;
    await this.release();
    try {
      await this.reserve(model, wanted);
    } catch (error) {
      if (previous) await this.reserve(previous.model, previous.wanted).catch(() => undefined);
      throw error;
    }
  }

  /** Replaces what is held with what the call really spent; only the first call counts. */
  settle(spend: Spend): void {
    if (this.settled) return;
    this.settled = true;
    this.onSettle?.(spend);
    for (const reservation of this.held) {
      this.limits.settle(reservation, spend).catch((error) => logger.error({ err: error }, "quota settlement failed"));
    }
  }

  private async release(): Promise<void> {
    const held = this.held;
    this.held = [];
    this.heldFor = undefined;
    await Promise.all(held.map((reservation) => this.limits.settle(reservation, NOTHING, true)));
  }
}
