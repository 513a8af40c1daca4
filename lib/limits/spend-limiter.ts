import type { RateLimiterAbstract } from "rate-limiter-flexible";
import type { Limits, Payer } from "@/lib/auth/token-record";
import { GatewayError } from "@/lib/canonical/gateway-error";
import { isRateLimiterRefusal } from "@/lib/state/rate-limiter-refusal";
import type { SharedState } from "@/lib/state/shared-state";
import type { QuotaSubject } from "@/lib/usage/request-log-store";
import { periodEnd, periodStart, type QuotaPeriod } from "./quota-period";
import type { WindowUnit } from "@/lib/state/shared-state";
import type { CompiledWindow } from "./limit-windows";
import { chargesFor, windowError, windowUsage, type WindowSpentSince } from "./window-charges";

export interface Spend {
  tokens: number;
  usd: number;
}

/** What a request holds between its reservation and its settlement. */
export interface Reservation {
  readonly reserved: Spend;
  readonly tokensKey: string | null;
  readonly usdKey: string | null;
  readonly tpm: { limiter: RateLimiterAbstract; key: string; points: number } | null;
  /** The limit windows charged, each with the moment it opened. */
  readonly windows: { key: string; start: number; held: Spend; window: CompiledWindow }[];
  /** Whose windows they are (null when nothing was reserved). */
  readonly subject: QuotaSubject | null;
  settled: boolean;
}

/** Loads what a subject spent since a moment, from the database. */
export type SpentSince = (subject: QuotaSubject, period: QuotaPeriod, since: Date) => Promise<Spend>;

const NO_WINDOW_SPEND: WindowSpentSince = async () => ({ tokens: 0, usd: 0, requests: 0 });

/** What an unlimited caller holds: nothing to settle. */
const UNLIMITED: Reservation = Object.freeze({
  reserved: { tokens: 0, usd: 0 },
  tokensKey: null,
  usdKey: null,
  tpm: null,
  windows: Object.freeze([]) as unknown as Reservation["windows"],
  subject: null,
  settled: true,
});

/** Told how limit windows fill (budget alerts): after each settlement, and when one refuses a request. */
export interface WindowWatcher {
  settled(subject: QuotaSubject, windows: readonly { window: CompiledWindow; key: string }[]): void;
  refused(subject: QuotaSubject, charged: { window: CompiledWindow; key: string }, unit: WindowUnit, used: number): void;
}

// Counters live a week past their last use; an idle one is rebuilt from the database.
const IDLE_TTL_SECONDS = 7 * 86_400;

/**
 * Rate limits and quotas that hold under concurrency and across processes: a request
 * reserves its worst case (prompt estimate + max output, and its cost) before the call,
 * and settles to the real usage after, so concurrent requests cannot overspend.
 */
export class SpendLimiter {
  constructor(
    private readonly state: SharedState,
    private readonly spentSince: SpentSince,
    /** Seeds calendar windows (per model, with request counts); rolling windows never need it. */
    private readonly windowSpentSince: WindowSpentSince = NO_WINDOW_SPEND,
  ) {}

  private watcher: WindowWatcher | undefined;

  /** Reports how windows fill to `watcher` from now on. */
  watchWindows(watcher: WindowWatcher): void {
    this.watcher = watcher;
  }

  /** Requests per minute: one point per request. */
  async consumeRequest(subject: QuotaSubject, limits: Limits): Promise<void> {
    if (!limits.rpm) return;
    await consume(
      this.state.rateLimiter("rpm", limits.rpm, 60),
      subjectKey(subject),
      1,
      () => `Rate limit reached: this key allows ${limits.rpm} requests per minute. Please try again later.`,
    );
  }

  /**
   * Holds the worst case of a request for `model` against every payer's limits, all or none.
   * Every payer's windows are charged in one atomic step, and last: a request that one payer's
   * limit refuses (a member's cap, a key's token rate) never holds another's window (the
   * team's) meanwhile, so concurrent requests of other members are not refused for a hold that
   * was never going to be kept. The quotas and token rates held before are the key's and its
   * owner's own.
   */
  async reserveAll(payers: readonly Payer[], wanted: Spend, model?: string, now = new Date()): Promise<Reservation[]> {
    const reservations = payers.map(({ subject, limits }) => (hasSpendLimits(limits) ? newReservation(subject) : UNLIMITED));
    try {
      for (const [index, { subject, limits }] of payers.entries()) await this.reserveQuotas(reservations[index]!, subject, limits, wanted, now);
      for (const [index, { subject, limits }] of payers.entries()) await this.reserveTpm(reservations[index]!, subject, limits, wanted);
      await this.reserveWindows(payers, reservations, wanted, model, now);
    } catch (error) {
      await Promise.all(reservations.map((reservation) => this.settle(reservation, { tokens: 0, usd: 0 }, true)));
      throw error;
    }
    return reservations;
  }

  /** The payer's token and dollar quotas for its period. */
  private async reserveQuotas(reservation: Reservation, subject: QuotaSubject, limits: Limits, wanted: Spend, now: Date): Promise<void> {
    if (limits.quotaTokens === null && limits.budgetUsd === null) return;
    const start = periodStart(limits.quotaPeriod, now);
    const end = periodEnd(limits.quotaPeriod, start);
    const ttl = end ? Math.ceil((end.getTime() - now.getTime()) / 1000) + 86_400 : IDLE_TTL_SECONDS;
    const base = `quota:${subjectKey(subject)}:${limits.quotaPeriod}:${start.getTime()}`;
    let loaded: Promise<Spend> | undefined;
    const initial = (field: keyof Spend) => async () => (await (loaded ??= this.spentSince(subject, limits.quotaPeriod, start)))[field];
    const retryAfter = end ? Math.max(1, Math.ceil((end.getTime() - now.getTime()) / 1000)) : undefined;
    const mutable = reservation as Mutable<Reservation>;
    if (limits.quotaTokens !== null) {
      const key = `${base}:tokens`;
      const result = await this.state.addWithin(key, wanted.tokens, limits.quotaTokens, initial("tokens"), ttl);
      if (!result.ok) throw quotaError(limits.quotaTokens - result.value, wanted.tokens, "tokens", retryAfter);
      mutable.tokensKey = key;
      mutable.reserved = { ...mutable.reserved, tokens: wanted.tokens };
    }
    if (limits.budgetUsd !== null) {
      const key = `${base}:usd`;
      const result = await this.state.addWithin(key, wanted.usd, limits.budgetUsd, initial("usd"), ttl);
      if (!result.ok) throw quotaError(limits.budgetUsd - result.value, wanted.usd, "usd", retryAfter);
      mutable.usdKey = key;
      mutable.reserved = { ...mutable.reserved, usd: wanted.usd };
    }
  }

  /** Every payer's windows that count `model`, charged together: all or none. */
  private async reserveWindows(payers: readonly Payer[], reservations: Reservation[], wanted: Spend, model: string | undefined, now: Date): Promise<void> {
    const charged = payers.flatMap(({ subject, limits }, index) => {
      if (limits.windows.length === 0) return [];
      const { windows, charges } = chargesFor(subject, subjectKey(subject), limits.windows, model, wanted, this.windowSpentSince, now.getTime());
      return charges.map((charge, at) => ({ charge, window: windows[at]!, subject, index }));
    });
    if (charged.length === 0) return;
    const result = await this.state.reserveWindows(charged.map(({ charge }) => charge));
    if (!result.ok) {
      const { charge, window, subject } = charged[result.index]!;
      this.watcher?.refused(subject, { window, key: charge.key }, result.unit, result.used);
      const wantedOfUnit = result.unit === "requests" ? 1 : wanted[result.unit];
      throw windowError(window, result.unit, result.used, wantedOfUnit, result.retryAfterMs, subject);
    }
    for (const [at, { charge, window, index }] of charged.entries()) {
      (reservations[index] as Mutable<Reservation>).windows.push({ key: charge.key, start: result.starts[at]!, held: wanted, window });
    }
  }

  /** The payer's tokens per minute. */
  private async reserveTpm(reservation: Reservation, subject: QuotaSubject, limits: Limits, wanted: Spend): Promise<void> {
    if (!limits.tpm) return;
    const limiter = this.state.rateLimiter("tpm", limits.tpm, 60);
    const points = Math.max(1, Math.min(wanted.tokens, limits.tpm));
    await consume(limiter, subjectKey(subject), points, () => `Rate limit reached: this key allows ${limits.tpm} tokens per minute. Please try again later.`);
    (reservation as Mutable<Reservation>).tpm = { limiter, key: subjectKey(subject), points };
  }

  /** Replaces the reservation with what was really spent; only the first call counts. */
  async settle(reservation: Reservation, actual: Spend, refused = false): Promise<void> {
    if (reservation.settled) return;
    reservation.settled = true;
    const work: Promise<unknown>[] = [];
    if (reservation.tokensKey) work.push(this.state.adjust(reservation.tokensKey, actual.tokens - reservation.reserved.tokens));
    if (reservation.usdKey) work.push(this.state.adjust(reservation.usdKey, actual.usd - reservation.reserved.usd));
    if (reservation.windows.length > 0) {
      // The worst case held in each window becomes the real spend; an admitted request stays counted.
      const settlements = reservation.windows.map(({ key, start, held }) => ({
        key,
        start,
        deltas: { tokens: actual.tokens - held.tokens, usd: actual.usd - held.usd, requests: refused ? -1 : 0 },
      }));
      const { subject } = reservation;
      work.push(this.state.settleWindows(settlements).then(() => subject && !refused && this.watcher?.settled(subject, reservation.windows)));
    }
    if (reservation.tpm) {
      const { limiter, key, points } = reservation.tpm;
      const difference = points - Math.min(actual.tokens, points * 10);
      if (difference > 0) work.push(limiter.reward(key, difference));
      else if (difference < 0) work.push(limiter.penalty(key, -difference));
    }
    await Promise.all(work);
  }

  /** Each of the caller's windows with its use and reset time. */
  windowUsage(subject: QuotaSubject, limits: Pick<Limits, "windows">) {
    return windowUsage(this.state, subject, subjectKey(subject), limits.windows, this.windowSpentSince);
  }

  /** Drops a subject's counters after an admin changed its quota, so they reload. */
  async forget(subject: QuotaSubject, limits: Pick<Limits, "quotaPeriod">, now = new Date()): Promise<void> {
    const base = `quota:${subjectKey(subject)}:${limits.quotaPeriod}:${periodStart(limits.quotaPeriod, now).getTime()}`;
    await this.state.forget([`${base}:tokens`, `${base}:usd`]);
  }
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function hasSpendLimits(limits: Limits): boolean {
  return limits.quotaTokens !== null || limits.budgetUsd !== null || Boolean(limits.tpm) || limits.windows.length > 0;
}

function newReservation(subject: QuotaSubject): Reservation {
  return { reserved: { tokens: 0, usd: 0 }, tokensKey: null, usdKey: null, tpm: null, windows: [], subject, settled: false };
}

function subjectKey(subject: QuotaSubject): string {
  return `${subject.kind}:${subject.id}`;
}

async function consume(limiter: RateLimiterAbstract, key: string, points: number, message: () => string): Promise<void> {
  try {
    await limiter.consume(key, points);
  } catch (rejection) {
    if (!isRateLimiterRefusal(rejection)) throw rejection;
    throw new GatewayError("rate_limit", message(), {
      code: "rate_limit_exceeded",
      retryAfterSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)),
    });
  }
}

function quotaError(left: number, wanted: number, unit: "tokens" | "usd", retryAfterSeconds: number | undefined): GatewayError {
  const remaining = Math.max(0, left);
  const message =
    remaining <= 0
      ? unit === "tokens"
        ? "You exceeded your current quota: this key has used all of its tokens."
        : "You exceeded your current quota: this key has spent its whole budget."
      : unit === "tokens"
        ? `This request could use up to ${Math.ceil(wanted)} tokens, more than the ${Math.floor(remaining)} left in this key's quota (or held by requests in flight). Lower max_tokens or try again shortly.`
        : `This request could cost up to $${wanted.toFixed(6)}, more than the $${remaining.toFixed(6)} left in this key's budget (or held by requests in flight).`;
  return new GatewayError("quota_exceeded", message, { code: "insufficient_quota", retryAfterSeconds });
}
