import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import { GatewayError } from "@/lib/canonical/gateway-error";

/**
 * Requests-per-minute per token. One limiter per distinct limit value, keyed by
 * token id. In-memory for one instance; a Redis-backed limiter slots in here for many.
 */
export class RequestRateLimiter {
  private readonly limiters = new Map<number, RateLimiterMemory>();

  async consume(tokenId: string, rpm: number | null): Promise<void> {
    if (rpm === null || rpm <= 0) return;
    let limiter = this.limiters.get(rpm);
    if (!limiter) {
      limiter = new RateLimiterMemory({ points: rpm, duration: 60 });
      this.limiters.set(rpm, limiter);
    }
    try {
      await limiter.consume(tokenId);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      throw new GatewayError("rate_limit", `Rate limit reached: this key allows ${rpm} requests per minute. Please try again later.`, {
        code: "rate_limit_exceeded",
        retryAfterSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)),
      });
    }
  }
}
