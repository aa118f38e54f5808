/**
 * `state`: where task stories, task and context owners and rate-limit counts live (docs/deploying.md
 * "Scaling out"). `memory` (the default) is this process; `redis` is shared by every replica and
 * worker. Redis is never waited for on the forwarding path except where a decision needs it
 * (an ownership check, a rate limit), each bounded by `timeout`.
 */
import { z } from 'zod';
import { duration } from './fields.js';

const redisUrl = z
  .string()
  .refine((value) => /^rediss?:\/\/[^/]/.test(value), 'must be a redis:// or rediss:// URL')
  .describe('redis URL');

const redis = z
  .object({
    /** `redis://[user:password@]host:port[/db]`, or `rediss://` for TLS. Usually `${REDIS_URL}`. */
    url: redisUrl,
    /** Every key the gateway writes starts with this (several gateways may share one Redis). */
    keyPrefix: z.string().min(1).max(100).default('a2a-gateway:'),
    /** Longest wait for one Redis command; an ownership check or rate limit past it counts as "down". */
    timeout: duration('500ms'),
    /** Task-store writes queued while Redis is slow or down; more are dropped (and counted). */
    maxPending: z.number().int().min(1).max(1_000_000).default(10_000),
    /** Refuse (503) a request whose task ownership cannot be checked because Redis is down; false admits it. */
    failClosed: z.boolean().default(true),
    /** `/readyz` answers 503 while Redis is down (default: readiness is about forwarding, which goes on). */
    required: z.boolean().default(false),
    /**
     * A task another replica has just created may not be in Redis yet (its write is
     * asynchronous): an owner lookup that finds nothing asks again after this long, then twice and four times as long.
     */
    ownerReadRetry: duration('25ms'),
    /** How long the replica exporting the task gauges keeps that role without scraping (then another takes it). */
    censusLease: duration('60s'),
  })
  .strict();

export const stateSchema = z
  .object({
    store: z.enum(['memory', 'redis']).default('memory'),
    redis: redis.optional(),
  })
  .strict()
  .prefault({})
  .superRefine((state, ctx) => {
    if (state.store === 'redis' && !state.redis)
      ctx.addIssue({ code: 'custom', path: ['redis'], message: '`store: redis` needs `redis: { url }`' });
  });

export type StateConfig = z.output<typeof stateSchema>;
export type RedisStateConfig = NonNullable<StateConfig['redis']>;
