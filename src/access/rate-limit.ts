/**
 * Per-agent rate limits (issue #13 item 5): `requests` per `per` for one caller, plus a `burst`
 * above that rate, refilled over the same interval. rate-limiter-flexible keeps the counts (in
 * memory now; its Redis store is the same interface for the scale-out issue), so no window
 * arithmetic is written here. Entries expire with their interval: memory follows the callers
 * active within one `per`.
 */
import { BurstyRateLimiter, RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

export interface RateLimitConfig {
  readonly requests: number;
  /** Milliseconds. */
  readonly per: number;
  readonly burst: number;
}

/** Allowed, or refused with the seconds to wait (for `Retry-After`). */
export type RateVerdict = { readonly ok: true } | { readonly ok: false; readonly retryAfterSeconds: number };

export class RateLimit {
  private readonly limiter: { consume(key: string): Promise<RateLimiterRes> };

  constructor(agent: string, config: RateLimitConfig) {
    const duration = config.per / 1000; // the library counts in seconds
    const rate = new RateLimiterMemory({ keyPrefix: `rate:${agent}`, points: config.requests, duration });
    this.limiter =
      config.burst > 0
        ? new BurstyRateLimiter(
            rate,
            new RateLimiterMemory({ keyPrefix: `burst:${agent}`, points: config.burst, duration }),
          )
        : rate;
  }

  /** Counts one request of `caller`. */
  async take(caller: string): Promise<RateVerdict> {
    try {
      await this.limiter.consume(caller);
      return { ok: true };
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      // Whole seconds (RFC 9110 §10.2.3), never 0: "retry now" would invite a tight loop.
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)) };
    }
  }
}
