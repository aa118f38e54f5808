/**
 * An agent's replicas and how the gateway watches them (docs/fleet.md "Replicas"): `upstreams`
 * (several URLs behind one agent name; `url` stays the one-replica form), active health checks
 * and passive outlier ejection. Task affinity (src/fleet/placement.ts) keys on a replica's URL,
 * so it is the same on every gateway replica and across reloads.
 */
import { z } from 'zod';
import { grpcAddress } from './grpc-schema.js';
import { agentBaseUrl, duration } from './fields.js';

/** A replica given as its URL alone is `{url}`: one schema, so a refusal names the member (`upstreams[0].url`). */
const replica = z.preprocess(
  (v) => (typeof v === 'string' ? { url: v } : v),
  z
    .object({
      url: agentBaseUrl,
      /** This replica's gRPC address (`host:port` or http(s)://host:port): each replica is called at its own. */
      grpc: grpcAddress.optional(),
      /** Takes no new conversations; its tasks keep their affinity (docs/fleet.md "Draining"). */
      drain: z.boolean().default(false),
    })
    .strict(),
);

export type ReplicaConfig = z.output<typeof replica>;

export const upstreamsSchema = z.array(replica).min(1).max(64).optional();

export const healthSchema = z
  .object({
    /** Active checks: a GET of `path` on every replica each `interval`; 2xx is a pass. */
    enabled: z.boolean().default(true),
    /** Default: the agent's `cardPath` (every A2A agent serves its card). */
    path: z.string().startsWith('/').optional(),
    interval: duration('10s'),
    timeout: duration('2s'),
    /** Consecutive passes that make an unhealthy replica healthy again. */
    healthyThreshold: z.number().int().min(1).max(100).default(2),
    /** Consecutive failures that make a healthy replica unhealthy. */
    unhealthyThreshold: z.number().int().min(1).max(100).default(3),
    /** Passive outlier ejection from live traffic: consecutive connect failures or 5xx answers… */
    consecutiveFailures: z.number().int().min(0).max(10_000).default(5),
    /** …eject the replica this long (then it takes traffic again; an active check may end it sooner). */
    ejectionTime: duration('30s'),
  })
  .strict()
  .prefault({});

export const affinitySchema = z
  .object({
    /** The shared store (Redis) cannot say which replica holds a task: 503 (true) or a balanced pick that may meet TaskNotFound (false). */
    failClosed: z.boolean().default(true),
  })
  .strict()
  .prefault({});

/** `url` or `upstreams`, never both; every replica serves the same base path (one agent). */
export function checkUpstreams(
  agent: { url?: string; upstreams?: readonly ReplicaConfig[] },
  ctx: z.RefinementCtx,
): void {
  if ((agent.url === undefined) === (agent.upstreams === undefined)) {
    const message =
      agent.url === undefined
        ? 'give the agent `url` (one replica) or `upstreams` (several)'
        : 'give `url` or `upstreams`, not both (`url` is the one-replica form)';
    ctx.addIssue({ code: 'custom', path: ['upstreams'], message });
    return;
  }
  const first = agent.upstreams?.[0];
  if (!first) return; // an empty list is the array's own issue (min 1)
  const seen = new Set<string>();
  const path = new URL(first.url).pathname;
  agent.upstreams?.forEach(({ url }, i) => {
    if (seen.has(url)) ctx.addIssue({ code: 'custom', path: ['upstreams', i], message: `${url} is listed twice` });
    seen.add(url);
    if (new URL(url).pathname !== path)
      ctx.addIssue({
        code: 'custom',
        path: ['upstreams', i],
        message: `every replica must serve the same base path (${path}): replicas differ only in host and port`,
      });
  });
}
