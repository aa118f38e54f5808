/**
 * The access-control sections of the config contract (docs/configuration.md "Access control"): the
 * admin listener, client authentication, the push-webhook allow-list, and per agent `access`,
 * `auth` and `rateLimit`. Cross-section rules (an agent's `access.allow` needs `auth:`) are
 * checked in schema.ts, where both sections are in view.
 */
import { z } from 'zod';
import { allowEntryProblem } from './allow-entry.js';
import { OPERATIONS } from '../a2a/operations.js';
import { ADMIN_PORT, duration, httpUrl, size } from './fields.js';

const listen = (port: number) =>
  z
    .object({
      host: z.string().min(1).default('127.0.0.1'),
      port: z.number().int().min(0).max(65_535).default(port),
    })
    .strict()
    .prefault({});

/** The operator plane: /exchanges, /tasks, /metrics and the full catalog, apart from traffic. */
export const adminSchema = z
  .object({
    listen: listen(ADMIN_PORT),
    /** Bearer token required for everything on the admin listener, when set. */
    token: z.string().min(16, 'must be at least 16 characters (e.g. `openssl rand -hex 32`)').optional(),
    /**
     * Without `token`: host names the admin listener answers besides IP literals and `localhost`
     * (e.g. a Service name); any other Host gets 403 (DNS rebinding: src/control/admin-origin.ts).
     */
    hosts: z.array(z.string().min(1)).default([]),
  })
  .strict()
  .prefault({});

const SHA256_HEX = /^[0-9a-f]{64}$/i;

const apiKey = z
  .object({
    /** The key itself (give it from the environment: `key: "${PLANNER_KEY}"`). */
    key: z.string().min(16, 'must be at least 16 characters').optional(),
    /** Or the lowercase hex SHA-256 of the key, so the config holds no secret. */
    sha256: z.string().regex(SHA256_HEX, 'must be 64 hex digits (the SHA-256 of the key)').optional(),
    groups: z.array(z.string().min(1)).default([]),
  })
  .strict()
  .refine((k) => (k.key === undefined) !== (k.sha256 === undefined), 'give exactly one of `key` and `sha256`');

const stringOrList = z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]);

const jwt = z
  .object({
    issuer: stringOrList,
    audience: stringOrList,
    /** Where the issuer publishes its keys (fetched on demand, cached, refreshed, size-capped). */
    jwksUrl: httpUrl.optional(),
    /** Or a static public key: PEM (SPKI) or one JWK as JSON. */
    key: z.string().min(1).optional(),
    /** Or an HS256 shared secret. */
    secret: z.string().min(32, 'must be at least 32 characters').optional(),
    algorithms: z.array(z.string().min(1)).optional(),
    /** Which claim names the principal. */
    principalClaim: z.string().min(1).default('sub'),
    /** Which claim carries groups: an array of strings, or a space-separated string (`scope`). */
    groupsClaim: z.string().min(1).default('groups'),
    /** Tolerated clock difference for `exp` and `nbf`. */
    clockSkew: duration('30s'),
    jwks: z
      .object({
        /** One JWKS fetch; past it the token is refused (401) and the fetch retried later. */
        timeout: duration('5s'),
        /** Least time between two fetches (a token with an unknown `kid` cannot force more). */
        cooldown: duration('30s'),
        /** Keys are re-fetched at least this often. */
        cacheMaxAge: duration('10m'),
        /** Largest JWKS document accepted. */
        maxBytes: size('256KiB'),
      })
      .strict()
      .prefault({}),
  })
  .strict()
  .refine(
    (j) => [j.jwksUrl, j.key, j.secret].filter((v) => v !== undefined).length === 1,
    'give exactly one of `jwksUrl`, `key` and `secret`',
  );

/** Client authentication; absent: the gateway admits every caller (the demo). */
export const authSchema = z
  .object({
    apiKeys: z.record(z.string().min(1), apiKey).default({}),
    jwt: jwt.optional(),
    /**
     * The secret ListTasks page tokens are sealed with under task ownership (src/access/page-tokens.ts):
     * the same on every replica, from the environment (`"${PAGE_TOKEN_SECRET}"`). Absent: a random
     * key per gateway process (its workers share it), so a page token does not outlive a restart
     * nor work on another replica.
     */
    pageTokenSecret: z.string().min(32, 'must be at least 32 characters (e.g. `openssl rand -hex 32`)').optional(),
  })
  .strict()
  .refine(
    (a) => Object.keys(a.apiKeys).length > 0 || a.jwt !== undefined,
    '`auth` needs `apiKeys` or `jwt` (remove the section to admit every caller)',
  );

export const pushNotificationsSchema = z
  .object({
    /** Refuse push webhooks that are not public (SSRF). Off only where agents deliver nowhere. */
    guard: z.boolean().default(true),
    /** CIDRs or host names webhooks may name although they are not public. */
    allow: z
      .array(z.string())
      .default([])
      .superRefine((entries, ctx) => {
        entries.forEach((entry, i) => {
          const problem = allowEntryProblem(entry);
          if (problem) ctx.addIssue({ code: 'custom', path: [i], message: problem });
        });
      }),
    /** Bound on resolving a webhook's host name; an unresolved host is refused. */
    resolveTimeout: duration('2s'),
  })
  .strict()
  .prefault({});

/** A2A operations as the 1.0 spec names them (§5.3), for `access.methods`: all but the card. */
export const RULE_OPERATIONS: readonly string[] = OPERATIONS.filter((op) => op !== 'AgentCard' && op !== 'unknown');

const principals = z.array(z.string().min(1));

export const agentAccessSchema = z
  .object({
    /** Principals or groups that may call the agent; absent: any authenticated caller. */
    allow: principals.optional(),
    /** Per-operation override of `allow`. */
    methods: z
      .record(z.string(), principals)
      .default({})
      .superRefine((methods, ctx) => {
        for (const name of Object.keys(methods).filter((n) => !RULE_OPERATIONS.includes(n)))
          ctx.addIssue({
            code: 'custom',
            path: [name],
            message: `not an A2A operation; use one of ${RULE_OPERATIONS.join(', ')}`,
          });
      }),
    /** A task is answered only to the principal whose call created it; default: on when `auth` is. */
    taskOwnership: z.boolean().optional(),
    /**
     * Under task ownership, a message may name a context id the gateway has not seen come back to
     * the caller: for clients that choose their own context ids for new conversations. The
     * trade-off: a context the task store has forgotten (`tasks.maxTracked`, `tasks.ttl`) can then
     * be claimed by whoever names it first. Default: such a message is refused like one into
     * another caller's context (src/access/ownership.ts `refusedContext`).
     */
    clientContextIds: z.boolean().default(false),
    /** The public card is readable without credentials. */
    publicCard: z.boolean().default(true),
  })
  .strict()
  .prefault({});

export const agentAuthSchema = z
  .object({
    /** Pass the caller's Authorization / X-API-Key on to the agent (default: stripped). */
    forward: z.boolean().default(false),
  })
  .strict()
  .prefault({});

export const rateLimitSchema = z
  .object({
    /** Requests per `per` for one principal (one client address when `auth` is off). */
    requests: z.number().int().min(1),
    per: duration('1m'),
    /** Extra requests allowed above the rate, refilled over the same interval. */
    burst: z.number().int().min(0).default(0),
  })
  .strict();
