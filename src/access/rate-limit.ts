/**
 * Per-agent rate limits (docs/security.md "Access control"): `requests` per `per` for one caller, plus a
 * `burst` above that rate, refilled over the same interval. rate-limiter-flexible keeps the
 * counts — in this process, or with `state.store: redis` in Redis, so every replica and worker
 * counts against one limit — and no window arithmetic is written here. When Redis cannot answer,
 * its insurance limiter counts in memory meanwhile (each replica then limits on its own), so a
 * Redis outage never refuses or admits everyone. Entries expire with their interval.
 */
import type { Redis } from 'ioredis';
import {
  BurstyRateLimiter,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';

export interface RateLimitConfig {
  readonly requests: number;
  /** Milliseconds. */
  readonly per: number;
  readonly burst: number;
}

/** Where shared counts live (`state.store: redis`). */
export interface SharedCounts {
  readonly client: Redis;
  readonly keyPrefix: string;
}

/** Allowed, or refused with the seconds to wait (for `Retry-After`). */
export type RateVerdict = { readonly ok: true } | { readonly ok: false; readonly retryAfterSeconds: number };

function limiter(keyPrefix: string, points: number, duration: number, shared?: SharedCounts): RateLimiterAbstract {
  const memory = new RateLimiterMemory({ keyPrefix, points, duration });
  if (!shared) return memory;
  return new RateLimiterRedis({
    storeClient: shared.client,
    keyPrefix: `${shared.keyPrefix}${keyPrefix}`,
    points,
    duration,
    rejectIfRedisNotReady: true,
    insuranceLimiter: memory,
  });
}

export class RateLimit {
  private readonly limiter: { consume(key: string): Promise<RateLimiterRes> };

  constructor(agent: string, config: RateLimitConfig, shared?: SharedCounts) {
    const duration = config.per / 1000; // the library counts in seconds
    const rate = limiter(`rate:${agent}`, config.requests, duration, shared);
    this.limiter =
      config.burst > 0 ? new BurstyRateLimiter(rate, limiter(`burst:${agent}`, config.burst, duration, shared)) : rate;
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
