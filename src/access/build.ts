/**
 * Makes the access-control pieces from the validated config, once at start-up (principle 11):
 * the authenticator, each agent's policy and rate limit, the push guard, the header strip lists
 * and what the cards advertise. src/gateway/gateway.ts hands them to the pipeline.
 */
import type { GatewayConfig } from '../config/schema.js';
import type { CardSecurity } from '../cards/security.js';
import { Authenticator, type AuthOptions } from './authenticate.js';
import { AccessGate, type AgentPolicy, type OwnerLookup } from './gate.js';
import { PushGuard } from './push-guard.js';
import { PageTokens, pageTokenKey } from './page-tokens.js';
import { RateLimit, type SharedCounts } from './rate-limit.js';

export interface AccessControl {
  readonly gate: AccessGate;
  readonly cardSecurity: CardSecurity | undefined;
}

export interface AccessSources {
  readonly taskOwners: OwnerLookup;
  readonly contextOwners: OwnerLookup;
  readonly pushCapable: (agent: string) => Promise<boolean>;
  /** With `state.store: redis`: rate limits count in Redis, once for every replica. */
  readonly sharedCounts?: SharedCounts;
  /** The process environment: a cluster worker's page-token key (page-tokens.ts PAGE_TOKEN_KEY_ENV). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

function authOptions(auth: NonNullable<GatewayConfig['auth']>): AuthOptions {
  const jwt = auth.jwt;
  return {
    apiKeys: auth.apiKeys,
    jwt: jwt && {
      issuer: jwt.issuer,
      audience: jwt.audience,
      jwksUrl: jwt.jwksUrl,
      key: jwt.key,
      secret: jwt.secret,
      algorithms: jwt.algorithms,
      clockSkewMs: jwt.clockSkew,
      principalClaim: jwt.principalClaim,
      groupsClaim: jwt.groupsClaim,
      jwks: {
        timeoutMs: jwt.jwks.timeout,
        cooldownMs: jwt.jwks.cooldown,
        cacheMaxAgeMs: jwt.jwks.cacheMaxAge,
        maxBytes: jwt.jwks.maxBytes,
      },
    },
  };
}

function policies(config: GatewayConfig, shared: SharedCounts | undefined): Map<string, AgentPolicy> {
  const authOn = config.auth !== undefined;
  return new Map(
    Object.entries(config.agents).map(([name, agent]) => [
      name,
      {
        allow: agent.access.allow,
        methods: agent.access.methods,
        taskOwnership: authOn && (agent.access.taskOwnership ?? true),
        clientContextIds: agent.access.clientContextIds,
        publicCard: agent.access.publicCard,
        forwardCredentials: agent.auth.forward,
        rateLimit: agent.rateLimit && new RateLimit(name, agent.rateLimit, shared),
      },
    ]),
  );
}

export function buildAccessControl(config: GatewayConfig, sources: AccessSources): AccessControl {
  const auth = config.auth;
  const authenticator = auth ? new Authenticator(authOptions(auth)) : undefined;
  const byAgent = policies(config, sources.sharedCounts);
  const push = config.pushNotifications;
  const gate = new AccessGate({
    authenticator,
    policies: byAgent,
    taskOwners: sources.taskOwners,
    contextOwners: sources.contextOwners,
    // Without a Redis store there is nothing that can be down.
    failClosed: config.state.redis?.failClosed ?? true,
    pushGuard: push.guard ? new PushGuard({ allow: push.allow, resolveTimeoutMs: push.resolveTimeout }) : undefined,
    pushCapable: sources.pushCapable,
    pageTokens: new PageTokens(pageTokenKey(auth?.pageTokenSecret, sources.env ?? {})),
  });
  return { gate, cardSecurity: cardSecurityOf(config) };
}

/** What the cards advertise: the gateway's schemes when `auth` is on. */
export function cardSecurityOf(config: GatewayConfig): CardSecurity | undefined {
  const auth = config.auth;
  return auth && { apiKeys: Object.keys(auth.apiKeys).length > 0, jwt: auth.jwt !== undefined };
}
