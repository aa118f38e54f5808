/**
 * The configuration contract (docs/configuration.md). Validated and defaulted once at start-up;
 * everything downstream receives the parsed `GatewayConfig` and never reads YAML or env itself.
 */
import { agentCardsSchema } from './card-signature-schema.js';
import { cardSigningSchema } from './card-signing-schema.js';
import { z } from 'zod';
import { LISTEN_PORT, agentBaseUrl, duration, durationAboveZero, httpUrl, size, sizeValue } from './fields.js';
import {
  adminSchema,
  agentAccessSchema,
  agentAuthSchema,
  authSchema,
  pushNotificationsSchema,
  rateLimitSchema,
} from './access-schema.js';
import { stateSchema } from './state-schema.js';
import { consoleSchema } from './console-schema.js';
import { catalogSchema } from './catalog-schema.js';
import { affinitySchema, checkUpstreams, healthSchema, upstreamsSchema } from './fleet-schema.js';
import { agentGrpcSchema, agentHostsSchema, grpcLimitsSchema, grpcListenSchema } from './grpc-schema.js';
import { agentIdempotencySchema, idempotencySchema } from './idempotency-schema.js';
import { agentResumeSchema, resumeSchema } from './resume-schema.js';

/**
 * What a client may send and hold open (principle 19). Every refusal is answered in the
 * caller's protocol where the gateway has read enough to know it (docs/security.md "Limits").
 */
const limits = z
  .object({
    /** Request body; more → 413 before the agent sees the rest. */
    bodyBytes: size('32MiB'),
    /** Request header fields; more → 431 (Node would silently drop those past its own cap). */
    headerCount: z.number().int().min(16).max(10_000).default(200),
    /** The request head (line and headers); more → 431. */
    headerBytes: size('16KiB'),
    /** From connection (or the previous request) to the whole request head received → 408. */
    headersTimeout: duration('10s'),
    /** Longest silence between two chunks of a request body → 408. */
    bodyIdle: duration('30s'),
    /** The whole request received, body included (bounds a body dribbled a byte at a time) → 408. */
    requestTimeout: duration('5m'),
    /** An idle keep-alive connection is closed after this long. */
    keepAliveTimeout: duration('65s'),
    /** Open client connections; more are closed at once. */
    connections: z.number().int().min(1).max(1_000_000).default(20_000),
    /** Open connections per client address (0: no cap — behind a load balancer every client shares one). */
    connectionsPerClient: z.number().int().min(0).max(1_000_000).default(0),
    /** HTTP/2 and gRPC: message size, streams per connection, session memory, idle, PING. */
    grpc: grpcLimitsSchema,
  })
  .strict()
  .prefault({});

/** Agent names are one URL path segment: /agents/{name}/… */
const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9._~-]*$/;

const timeouts = z
  .object({
    /** TCP/TLS connect to the agent. */
    connect: duration('10s'),
    /** From request sent to response headers received. Default none: a blocking send may take minutes. */
    headers: duration('none'),
    /** Longest silence between two body chunks. Default none: an SSE stream may be quiet for long. */
    bodyIdle: duration('none'),
    /** Longest wait for a free connection to the agent → 503 with Retry-After. */
    queue: duration('30s'),
  })
  .strict()
  .prefault({});

/** Config keys renamed in a release, accepted under their old name (CHANGELOG.md). */
const RENAMED_AGENT_KEYS: Readonly<Record<string, string>> = { upgradeBlocking: 'timeoutRescue' };

/** Moves a renamed key to its new name; both at once is a mistake worth naming. */
function renameAgentKeys(raw: unknown, ctx: z.RefinementCtx): unknown {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return raw;
  const out: Record<string, unknown> = { ...raw };
  for (const [old, current] of Object.entries(RENAMED_AGENT_KEYS)) {
    if (!(old in out)) continue;
    if (current in out)
      ctx.addIssue({ code: 'custom', path: [old], message: `renamed to \`${current}\`; give only \`${current}\`` });
    else out[current] = out[old];
    delete out[old];
  }
  return out;
}

const agentObject = z
  .object({
    /** The agent's base URL; its card is at `{url}{cardPath}`. One replica: `upstreams` is the form for several. */
    url: agentBaseUrl.optional(),
    /** The agent's replicas (docs/fleet.md "Replicas"): URLs, or `{ url, grpc?, drain? }`. */
    upstreams: upstreamsSchema,
    /** Active health checks and passive outlier ejection of the replicas. */
    health: healthSchema,
    /** Task affinity across replicas (docs/fleet.md "Task affinity"). */
    affinity: affinitySchema,
    cardPath: z.string().startsWith('/').default('/.well-known/agent-card.json'),
    /**
     * `/readyz` waits for this agent's card (fetched once) before the gateway is ready. Default
     * false: readiness is about the gateway itself, and one unreachable agent must not pull every
     * pod out of the Service (issue #30; docs/deploying.md "Probes").
     */
    required: z.boolean().default(false),
    /** The agent's card: the keys its signatures are checked with (docs/security.md "Signed agent cards"). */
    cards: agentCardsSchema,
    /** Extra headers the gateway adds to every upstream request (credentials it injects). */
    headers: z.record(z.string(), z.string()).default({}),
    timeouts,
    /** Keep-alive connections per agent for calls that answer and are done. */
    connections: z.number().int().positive().max(10_000).default(256),
    /** Connections per agent for long-lived streams (SSE), kept apart so streams never starve unary calls. */
    streamConnections: z.number().int().positive().max(100_000).default(10_000),
    /** Timeout rescue: a blocking SendMessage becomes returnImmediately + a wait inside the client's deadline. */
    timeoutRescue: z
      .object({
        enabled: z.boolean().default(false),
        /** The deadline assumed when the client states none; also the cap on one it states. */
        clientTimeout: duration('30s'),
        /** Answer this long before the deadline. */
        margin: duration('1s'),
        strategy: z.enum(['auto', 'stream', 'subscribe', 'poll']).default('auto'),
        /** First GetTask poll interval; it grows by half each poll up to `pollMax`, with jitter. */
        pollInitial: duration('250ms'),
        pollMax: duration('5s'),
      })
      .strict()
      .prefault({}),
    /** Overrides of the gateway-wide `limits` for this agent. */
    limits: z
      .object({
        bodyBytes: sizeValue.optional(),
        /** Unary calls in flight to this agent per principal (or client address); 0: no cap. Default: half of `connections`. */
        callsPerClient: z.number().int().min(0).max(100_000).optional(),
      })
      .strict()
      .prefault({}),
    /** Who may call this agent and which operations (docs/security.md "Access control"). */
    access: agentAccessSchema,
    auth: agentAuthSchema,
    /** Requests per principal (or client address) per interval, with a burst → 429. */
    rateLimit: rateLimitSchema.optional(),
    /** Hostnames routed to this agent with the path as is (its card at the origin root). */
    hosts: agentHostsSchema,
    /**
     * The A2A tenants (spec §5.7) callers may name at this agent; a call naming another is refused
     * TENANT_NOT_FOUND. Absent: any tenant goes through. A call naming none always does.
     */
    tenants: z.array(z.string().min(1)).min(1).optional(),
    /** The agent's gRPC interface. */
    grpc: agentGrpcSchema,
    /** Idempotent sends: a repeated SendMessage gets the first one's outcome (docs/fleet.md). */
    idempotency: agentIdempotencySchema,
    /** Stream resume: SSE ids and a replay window per task stream (docs/fleet.md "Stream resume"). */
    resume: agentResumeSchema,
    /**
     * Protocol translation (docs/translation.md): the A2A version the agent speaks; calls in the
     * other version are translated both ways. Absent: every call goes to the agent as it came.
     */
    translate: z
      .object({ agentVersion: z.enum(['0.3', '1.0']) })
      .strict()
      .optional(),
    sse: z
      .object({
        /** Write an SSE comment when a stream has been quiet this long (between events only). */
        keepalive: duration('15s'),
      })
      .strict()
      .prefault({}),
    /** What the gateway does about this agent's tasks beyond what callers show it. */
    tasks: z
      .object({
        /**
         * Confirm stale tasks (src/confirm/confirm.ts): a GetTask of the gateway's own, with the
         * agent's `headers`, for unfinished tasks no answer has shown for `tasks.unobservedAfter`.
         */
        confirm: z
          .object({
            enabled: z.boolean().default(false),
            /** How often to look for unobserved tasks of this agent. */
            interval: durationAboveZero('30s'),
            /** At most this many GetTasks per look, one at a time. */
            batch: z.number().int().min(1).max(1000).default(10),
            /** One GetTask's limit (connect to last byte). */
            timeout: durationAboveZero('10s'),
          })
          .strict()
          .prefault({}),
      })
      .strict()
      .prefault({}),
  })
  .strict();

/**
 * After validation every agent has `upstreams` (one for `url`), and `url` is the first's.
 * `replicated`: configured with `upstreams` (even one), so task affinity applies — a task pinned
 * to a replica later removed is still answered TASK_REPLICA_GONE (docs/fleet.md).
 */
const agent = z.preprocess(
  renameAgentKeys,
  agentObject.superRefine(checkUpstreams).transform((a) => {
    const upstreams = a.upstreams ?? [{ url: a.url!, grpc: undefined, drain: false }];
    return { ...a, url: upstreams[0]!.url, upstreams, replicated: a.upstreams !== undefined };
  }),
);

const configObject = z
  .object({
    listen: z
      .object({
        host: z.string().min(1).default('127.0.0.1'),
        port: z.number().int().min(0).max(65_535).default(LISTEN_PORT),
        /** The gRPC listener (HTTP/2 cleartext), shared by the agents routed by host. */
        grpc: grpcListenSchema.optional(),
      })
      .strict()
      .prefault({}),
    /** The operator plane: /exchanges, /tasks, /metrics, the full catalog. */
    admin: adminSchema,
    /** Client authentication; absent: every caller is admitted. */
    auth: authSchema.optional(),
    pushNotifications: pushNotificationsSchema,
    /** The URL clients reach the gateway at; used when rewriting agent cards. */
    publicUrl: httpUrl.optional(),
    /** The public AI Catalog (`/.well-known/ai-catalog.json`): who runs it. */
    catalog: catalogSchema,
    /** Peers (IP addresses) whose X-Forwarded-* headers are believed. */
    trustedProxies: z.array(z.union([z.ipv4(), z.ipv6()])).default([]),
    /** Worker processes (node:cluster) sharing both listeners; `auto`: one per core
     * (os.availableParallelism()). 1, the default: a single process, no cluster (src/cluster/). */
    workers: z.union([z.number().int().min(1).max(256), z.literal('auto')]).default(1),
    shutdown: z
      .object({ grace: duration('10s') })
      .strict()
      .prefault({}),
    limits,
    log: z
      .object({
        level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
        /** One JSON line per exchange (at level info). Off saves ~15 % CPU per small request (bench/RESULTS.md). */
        access: z.boolean().default(true),
        /** Query strings in exchange records and the access log: values replaced (`redact`) or kept (`keep`). */
        queryStrings: z.enum(['redact', 'keep']).default('redact'),
      })
      .strict()
      .prefault({}),
    cards: z
      .object({
        /** Upper bound on how long a fetched card is reused, whatever its Cache-Control says. */
        maxAge: duration('5m'),
        /** Retry interval while an agent's card has never been fetched (readiness). */
        retry: duration('5s'),
        /** Most bytes of an agent card, as received and decoded; a larger card is refused (502). */
        maxBytes: size('1MiB'),
        /** The gateway's key: the cards it serves carry its signature (docs/security.md "Signed agent cards"). */
        signing: cardSigningSchema.optional(),
      })
      .strict()
      .prefault({}),
    metrics: z
      .object({
        enabled: z.boolean().default(true),
        path: z.string().startsWith('/').default('/metrics'),
        /** Node.js process metrics (CPU, memory, event loop, GC). */
        processMetrics: z.boolean().default(true),
      })
      .strict()
      .prefault({}),
    inspection: z
      .object({
        /** Decode every exchange (kind, task ids, states, findings, task tracking). Off: a plain proxy. */
        enabled: z.boolean().default(true),
        /** Most bytes of each body inspection reads and holds, however large the body (1 MiB). */
        maxBytes: z
          .number()
          .int()
          .min(1024)
          .max(64 * 1024 * 1024)
          .default(1024 * 1024),
        /**
         * What the decoders of all exchanges in flight hold together (64 MiB). Past it, new
         * exchanges are inspected head-only (16 KiB) and say `partial` where that cut something.
         */
        budgetBytes: size('64MiB'),
        /**
         * How a task stream's later status and artifact updates are read: `head` (default) reads
         * what inspection needs from the start of each event in place; `full` parses every event
         * whole, so invalid JSON and shape evidence anywhere in it are reported (src/a2a/event-head.ts).
         */
        streamEvents: z.enum(['head', 'full']).default('head'),
        /** Finished exchanges kept for `GET /exchanges` (0 turns the endpoint's memory off). */
        recent: z.number().int().min(0).max(100_000).default(200),
      })
      .strict()
      .prefault({}),
    tasks: z
      .object({
        /** Tasks followed across calls at once; the least recently seen are forgotten first. */
        maxTracked: z.number().int().min(1).max(10_000_000).default(100_000),
        /** A task not seen for this long is forgotten. */
        ttl: duration('1h'),
        /**
         * An unfinished task no answer has shown for this long counts as unobserved
         * (`a2a_tasks_unobserved`), not as waiting in its state (`a2a_task_oldest_state_age_seconds`).
         */
        unobservedAfter: duration('5m'),
      })
      .strict()
      .prefault({}),
    /** Where task stories, owners and rate-limit counts live: this process, or Redis shared by replicas. */
    state: stateSchema,
    /** The in-memory store of idempotent sends (agents.{name}.idempotency). */
    idempotency: idempotencySchema,
    /** The in-memory replay windows of stream resume (agents.{name}.resume). */
    resume: resumeSchema,
    /** The live console on the admin listener. */
    console: consoleSchema,
    agents: z.record(z.string(), agent).superRefine((agents, ctx) => {
      const names = Object.keys(agents);
      if (names.length === 0) ctx.addIssue({ code: 'custom', message: 'at least one agent is required' });
      for (const name of names.filter((n) => !AGENT_NAME.test(n))) {
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: 'an agent name is one URL path segment: letters, digits, ".", "_", "~", "-"',
        });
      }
    }),
  })
  .strict();

/** `metrics.listen` became `admin.listen` in 0.2.0 (CHANGELOG.md): metrics are served there. */
function moveMetricsListen(raw: unknown, ctx: z.RefinementCtx): unknown {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return raw;
  const root = raw as Record<string, unknown>;
  const metrics = root.metrics as Record<string, unknown> | undefined;
  if (!metrics || typeof metrics !== 'object' || !('listen' in metrics)) return raw;
  const admin = (root.admin ?? {}) as Record<string, unknown>;
  if (typeof admin === 'object' && admin !== null && 'listen' in admin) {
    ctx.addIssue({ code: 'custom', path: ['metrics', 'listen'], message: 'moved to `admin.listen`; give only that' });
    return raw;
  }
  const { listen, ...rest } = metrics;
  return { ...root, metrics: rest, admin: { ...admin, listen } };
}

/** Rules across sections: access rules need callers with names; ownership needs inspection. */
function checkAccess(config: z.output<typeof configObject>, ctx: z.RefinementCtx): void {
  for (const [name, agent] of Object.entries(config.agents)) {
    const path = ['agents', name, 'access'];
    const rules = agent.access.allow !== undefined || Object.keys(agent.access.methods).length > 0;
    if (!config.auth && rules)
      ctx.addIssue({ code: 'custom', path, message: '`allow` and `methods` need `auth:` (who the callers are)' });
    if (!config.auth && agent.access.taskOwnership)
      ctx.addIssue({ code: 'custom', path: [...path, 'taskOwnership'], message: 'needs `auth:` (who owns a task)' });
    if (!config.auth && !agent.access.publicCard)
      ctx.addIssue({ code: 'custom', path: [...path, 'publicCard'], message: 'false needs `auth:`' });
    if (agent.access.clientContextIds && (!config.auth || agent.access.taskOwnership === false))
      ctx.addIssue({
        code: 'custom',
        path: [...path, 'clientContextIds'],
        message: 'relaxes task ownership: needs `auth:` and `taskOwnership` on',
      });
    if (config.auth && agent.access.taskOwnership !== false && !config.inspection.enabled)
      ctx.addIssue({
        code: 'custom',
        path: [...path, 'taskOwnership'],
        message: 'needs `inspection.enabled` (the gateway learns who owns a task from its answers); set it false',
      });
  }
}

/**
 * Worker processes need shared state: with each worker's own, a follow-up call landing on another
 * worker would find no task owner (TaskNotFound), half a task story, and a rate limit per worker
 * (docs/deploying.md "Worker processes"). A store in the primary would be a home-made one on the hot path.
 */
function checkWorkers(config: z.output<typeof configObject>, ctx: z.RefinementCtx): void {
  if (config.workers !== 1 && config.state.store !== 'redis')
    ctx.addIssue({
      code: 'custom',
      path: ['workers'],
      message: 'more than one worker needs `state.store: redis` (task stories, owners and rate limits must be shared)',
    });
}

/** A host names one agent (a port is one listener's: cross-checks.ts, in the same pass). */
function checkRouting(config: z.output<typeof configObject>, ctx: z.RefinementCtx): void {
  const hostOwner = new Map<string, string>();
  for (const [name, agent] of Object.entries(config.agents)) {
    agent.hosts.forEach((host, i) => {
      const other = hostOwner.get(host);
      if (other)
        ctx.addIssue({
          code: 'custom',
          path: ['agents', name, 'hosts', i],
          message: `${host} is already agent ${other}'s`,
        });
      hostOwner.set(host, name);
    });
  }
}

export const configSchema = z.preprocess(
  moveMetricsListen,
  configObject.superRefine(checkAccess).superRefine(checkWorkers).superRefine(checkRouting),
);

export type GatewayConfig = z.output<typeof configSchema>;
export type AgentConfig = GatewayConfig['agents'][string];
