/**
 * Access control for one request, between classification and forwarding (pipeline step 3b,
 * docs/ARCHITECTURE.md): who is calling, not too often, may they call this operation, is it
 * their task, is their push webhook safe. The checks run in that order so that a refusal tells
 * a caller nothing it may not know: an unauthenticated caller learns no rule, a rate-limited one
 * nothing about tasks, a caller asking for another's task only "not found".
 *
 * A refusal is thrown (a GatewayError, or an A2AError for TaskNotFound / InvalidParams) and
 * answered by the pipeline in the caller's protocol; nothing reaches the agent. What was decided
 * lands on `exchange.record.access` for the access log, the span and the metrics.
 */
import type { IncomingMessage } from 'node:http';
import type { Exchange } from '../exchange/exchange.js';
import type { AccessFacts } from '../exchange/record.js';
import type { RequestFacts } from '../a2a/request.js';
import type { Operation } from '../a2a/operations.js';
import { GatewayError } from '../errors/gateway-error.js';
import { A2AError, taskNotFound } from '../errors/a2a-error.js';
import { Authenticator, type AuthResult } from './authenticate.js';
import { ownedTasksFilter, type AnswerFilter } from './answer-filter.js';
import type { Principal } from './principal.js';
import { admits, mayUse, type AccessRules } from './rules.js';
import { checkOwnership, namedTaskIds, refusedContext } from './ownership.js';
import { StoreUnavailable, type Owners } from '../tasks/tracker.js';
import type { RateLimit } from './rate-limit.js';
import type { PushGuard } from './push-guard.js';
import type { PageTokens } from './page-tokens.js';

/** One agent's access settings, built once from its config. */
export interface AgentPolicy extends AccessRules {
  readonly taskOwnership: boolean;
  /** Under task ownership: a message may name a context the gateway does not know (`access.clientContextIds`). */
  readonly clientContextIds: boolean;
  readonly publicCard: boolean;
  /** Pass the caller's credentials on to the agent. */
  readonly forwardCredentials: boolean;
  readonly rateLimit?: RateLimit;
}

export interface GateDeps {
  /** Absent: `auth` is off and every caller is anonymous. */
  readonly authenticator?: Authenticator;
  readonly policies: ReadonlyMap<string, AgentPolicy>;
  /** Owners of tasks and contexts, from the task store (rejects with StoreUnavailable). */
  readonly taskOwners: OwnerLookup;
  readonly contextOwners: OwnerLookup;
  /** When the store cannot answer an ownership check: refuse (503, the default) or admit. */
  readonly failClosed: boolean;
  /** Absent: `pushNotifications.guard` is off. */
  readonly pushGuard?: PushGuard;
  /** Whether the agent's card says it sends push notifications (for bodies too large to check). */
  readonly pushCapable: (agent: string) => Promise<boolean>;
  /** Seals the agents' ListTasks page tokens for their callers under task ownership. */
  readonly pageTokens: PageTokens;
}

export type OwnerLookup = (agent: string, ids: readonly string[]) => Promise<Owners>;

/** What the rest of the pipeline must do for an admitted request. */
export interface Admission {
  readonly principal?: Principal;
  /** Request headers not to forward: the caller's credentials (unless `auth.forward`), and
   * `accept-encoding` when the answer must be read to be filtered. */
  readonly stripHeaders?: ReadonlySet<string>;
  /** The filter a 2xx (gRPC: status 0) answer goes through, in the caller's binding: ListTasks
   * under task ownership (list-tasks.ts, list-tasks-grpc.ts). */
  readonly answerFilter?: AnswerFilter;
  /** ListTasks under task ownership: the agent's page token the caller's sealed one opened to;
   * the binding puts it in the request in place of the caller's (page-token-request.ts). */
  readonly agentPageToken?: string;
}

/** Nothing to strip or filter: `auth` is off, or the request is for the public card. */
export const OPEN: Admission = {};

const CREDENTIALS: ReadonlySet<string> = new Set(Authenticator.CREDENTIAL_HEADERS);
const CREDENTIALS_AND_ENCODING: ReadonlySet<string> = new Set([...CREDENTIALS, 'accept-encoding']);

/**
 * Rules that depend on which operation a request is: a request the classifier cannot name could
 * be any of them to the agent, so it is refused (deny by default, principle 19).
 */
function guardsOperations(policy: AgentPolicy): boolean {
  return policy.taskOwnership || Object.keys(policy.methods).length > 0;
}

export class AccessGate {
  /** One authentication per catalog request, however many agents it asks about. */
  private readonly catalogCallers = new WeakMap<IncomingMessage, Promise<AuthResult>>();

  /** The request headers `mayList` decides by: the credentials, with `auth` on; else none. */
  readonly listVaries: readonly string[];

  constructor(private readonly deps: GateDeps) {
    this.listVaries = deps.authenticator ? Authenticator.CREDENTIAL_HEADERS : [];
  }

  /**
   * Whether the public catalog (`GET /agents` and `/.well-known/ai-catalog.json` on the traffic listener) shows `agent` to this
   * caller: with `auth` on, only agents the authenticated caller may use (an anonymous caller
   * sees none); with it off, every agent.
   */
  async mayList(req: IncomingMessage, agent: string): Promise<boolean> {
    const authenticator = this.deps.authenticator;
    const policy = this.deps.policies.get(agent);
    if (!authenticator || !policy) return policy !== undefined;
    let caller = this.catalogCallers.get(req);
    if (!caller) this.catalogCallers.set(req, (caller = authenticator.authenticate(req.headers, req.rawHeaders)));
    const result = await caller;
    return 'principal' in result && mayUse(policy, result.principal);
  }

  /** Nothing to check for this request (no auth, no rate limit, no webhook): admitted without a wait. */
  passes(exchange: Exchange): boolean {
    const facts = exchange.request;
    return (
      !this.deps.authenticator &&
      !this.deps.policies.get(exchange.upstream.name)?.rateLimit &&
      (!this.deps.pushGuard ||
        (facts?.pushUrls === undefined && facts?.pushUrl === undefined && facts?.partial !== true))
    );
  }

  /** Admits the request or throws its refusal. `caller` keys the rate limit when no one signed in. */
  async admit(exchange: Exchange, clientAddress: string): Promise<Admission> {
    const facts = exchange.request;
    const operation: Operation = facts?.operation ?? 'unknown';
    const agent = exchange.upstream.name;
    const policy = this.deps.policies.get(agent);
    if (!policy || (operation === 'AgentCard' && policy.publicCard)) return OPEN;
    const access: AccessFacts = (exchange.record.access = {});
    const principal = await this.identify(exchange, access);
    await this.limitRate(exchange, policy, principal?.id ?? clientAddress, access);
    if (principal) this.checkRules(agent, policy, principal, operation, access);
    let agentPageToken: string | undefined;
    if (principal && facts && policy.taskOwnership) {
      await this.checkOwner(agent, facts, principal, access);
      await this.checkContext(agent, policy, facts, principal, access);
      if (operation === 'ListTasks') agentPageToken = this.openPageToken(agent, facts, principal, access);
    }
    if (facts) await this.checkPush(exchange, facts, access);
    return principal ? this.admission(agent, policy, principal, operation, agentPageToken) : OPEN;
  }

  /**
   * A stream resumed by `Last-Event-ID` (pipeline step 4b) follows the task its id names, which
   * the request itself may not name (a SendStreamingMessage sent again): under task ownership
   * that task must be the caller's, as for a SubscribeToTask; else TaskNotFound (ownership.ts).
   */
  async checkResumed(exchange: Exchange, admission: Admission, taskId: string): Promise<void> {
    const agent = exchange.upstream.name;
    const principal = admission.principal;
    if (!principal || !this.deps.policies.get(agent)?.taskOwnership) return;
    const owners = await this.owners(this.deps.taskOwners, agent, [taskId], principal.id);
    if (owners.get(taskId) === principal.id) return;
    (exchange.record.access ??= {}).denied = 'not-owner';
    throw taskNotFound(taskId);
  }

  /** `access.allow` and `access.methods`; under rules that depend on the operation, only known ones. */
  private checkRules(
    agent: string,
    policy: AgentPolicy,
    principal: Principal,
    operation: Operation,
    access: AccessFacts,
  ) {
    if (operation === 'unknown' && guardsOperations(policy)) {
      access.denied = 'forbidden';
      throw new GatewayError(
        'PERMISSION_DENIED',
        `agent "${agent}" admits only A2A operations the gateway recognises (it has task ownership or per-operation rules)`,
        { agent, operation },
      );
    }
    if (admits(policy, principal, operation)) return;
    access.denied = 'forbidden';
    throw new GatewayError('PERMISSION_DENIED', `"${principal.id}" may not call ${operation} on agent "${agent}"`, {
      agent,
      operation,
    });
  }

  /**
   * The agent's page token a ListTasks call's sealed one opens to (page-tokens.ts), or undefined
   * for a first page. Any token that does not open for this agent and caller, or two that open
   * differently, is refused as InvalidParams: the agent's own tokens name other callers' tasks.
   */
  private openPageToken(agent: string, facts: RequestFacts, principal: Principal, access: AccessFacts) {
    if (facts.partial || facts.malformed) {
      throw new GatewayError(
        'REQUEST_INVALID',
        'task ownership: a ListTasks request must be read whole to check its page token',
        {
          agent,
        },
      );
    }
    const tokens = facts.pageTokens ?? [];
    const opened = new Set(tokens.map((token) => this.deps.pageTokens.open(token, agent, principal.id)));
    if (opened.size === 0) return undefined;
    const [only] = opened;
    if (opened.size === 1 && only !== undefined) return only;
    access.denied = 'foreign-page-token';
    throw new A2AError(
      'InvalidParams',
      'pageToken was not issued by this gateway to this caller for this agent; list again from the first page',
      {
        rule: 'foreign-page-token',
      },
    );
  }

  /** An authenticated caller's request: credentials stay here; a ListTasks answer is filtered. */
  private admission(
    agent: string,
    policy: AgentPolicy,
    principal: Principal,
    operation: Operation,
    agentPageToken: string | undefined,
  ): Admission {
    const filtered = policy.taskOwnership && operation === 'ListTasks';
    const owners = (ids: readonly string[]) => this.owners(this.deps.taskOwners, agent, ids);
    const seal = (token: string) => this.deps.pageTokens.seal(token, agent, principal.id);
    return {
      principal,
      stripHeaders: filtered ? CREDENTIALS_AND_ENCODING : policy.forwardCredentials ? undefined : CREDENTIALS,
      answerFilter: filtered ? ownedTasksFilter(agent, principal.id, owners, seal) : undefined,
      agentPageToken,
    };
  }

  /** The caller's principal; a 401 when `auth` is on and the credentials do not do. */
  private async identify(exchange: Exchange, access: AccessFacts): Promise<Principal | undefined> {
    const authenticator = this.deps.authenticator;
    if (!authenticator) return undefined;
    const result = await authenticator.authenticate(exchange.call.headers, exchange.call.rawHeaders);
    if ('principal' in result) {
      access.principal = result.principal.id;
      return result.principal;
    }
    access.denied = result.failure;
    const message =
      result.failure === 'missing'
        ? 'authentication required: send Authorization: Bearer <token> or X-API-Key: <key>'
        : result.failure === 'ambiguous-credentials'
          ? 'more than one credential (ambiguous-credentials): send one Authorization or one X-API-Key header, not both nor either twice'
          : `the credentials were not accepted (${result.failure})`;
    throw new GatewayError(
      'UNAUTHENTICATED',
      message,
      {},
      {
        headers: { 'www-authenticate': authenticator.challenge(result.failure) },
      },
    );
  }

  private async limitRate(exchange: Exchange, policy: AgentPolicy, caller: string, access: AccessFacts) {
    if (!policy.rateLimit) return;
    const verdict = await policy.rateLimit.take(caller);
    if (verdict.ok) return;
    access.rateLimited = true;
    throw new GatewayError(
      'RATE_LIMITED',
      `rate limit of agent "${exchange.upstream.name}" reached; retry in ${verdict.retryAfterSeconds} s`,
      { agent: exchange.upstream.name },
      { headers: { 'retry-after': String(verdict.retryAfterSeconds) } },
    );
  }

  /**
   * The owners of `ids` from the task store. A store that cannot answer (a shared store that is
   * down) refuses the request with 503 under `failClosed`; otherwise every id counts as the
   * caller's (admitted). Nothing is looked up for no ids.
   */
  private async owners(lookup: OwnerLookup, agent: string, ids: readonly string[], caller?: string): Promise<Owners> {
    if (ids.length === 0) return new Map();
    try {
      return await lookup(agent, ids);
    } catch (err) {
      if (!(err instanceof StoreUnavailable)) throw err;
      if (this.deps.failClosed) {
        throw new GatewayError(
          'STATE_UNAVAILABLE',
          'task ownership cannot be checked now (the shared task store does not answer); retry shortly',
          { agent },
          { headers: { 'retry-after': '1' } },
        );
      }
      return new Map(ids.map((id) => [id, caller]));
    }
  }

  private async checkOwner(agent: string, facts: RequestFacts, principal: Principal, access: AccessFacts) {
    const owners = await this.owners(this.deps.taskOwners, agent, namedTaskIds(facts), principal.id);
    const verdict = checkOwnership(facts, principal.id, (taskId) => owners.get(taskId));
    if (verdict.ok) return;
    if ('unnamed' in verdict) {
      throw new GatewayError('REQUEST_INVALID', `${facts.operation} names no task id the gateway can read`, {
        agent,
      });
    }
    if ('unread' in verdict) {
      throw new GatewayError(
        'REQUEST_INVALID',
        'task ownership: the task id was not found in the first 64 KiB of the request; send large files by URL',
        { agent },
      );
    }
    access.denied = 'not-owner';
    throw taskNotFound(verdict.taskId);
  }

  /**
   * A message into a conversation that is not the caller's is refused (it could read what the
   * agent remembers): another caller's, and — unless `access.clientContextIds` — one the gateway
   * does not know, with the same answer (ownership.ts `refusedContext`). A store that cannot
   * answer is `owners`' to decide (`failClosed`).
   */
  private async checkContext(
    agent: string,
    policy: AgentPolicy,
    facts: RequestFacts,
    principal: Principal,
    access: AccessFacts,
  ) {
    const owners = await this.owners(this.deps.contextOwners, agent, facts.contextIds ?? [], principal.id);
    const refused = refusedContext(facts, principal.id, (id) => owners.get(id), policy.clientContextIds);
    if (refused === undefined) return;
    access.denied = 'not-owner';
    throw new GatewayError(
      'PERMISSION_DENIED',
      'this contextId is not one of your conversations; omit contextId to let the agent start a new one',
      { agent },
    );
  }

  /** Refuses a push webhook that is not public (SSRF), before the agent ever sees it. */
  private async checkPush(exchange: Exchange, facts: RequestFacts, access: AccessFacts): Promise<void> {
    const guard = this.deps.pushGuard;
    if (!guard) return;
    const refuse = (rule: NonNullable<AccessFacts['pushRefused']>, message: string) => {
      access.pushRefused = rule;
      exchange.record.findings.push({ rule: 'gateway.push-url-refused', count: 1, detail: rule });
      return new A2AError('InvalidParams', message, { rule });
    };
    const urls = facts.pushUrls ?? (facts.pushUrl !== undefined ? [facts.pushUrl] : []);
    if (urls.length === 0) {
      if (facts.partial && (await this.mayCarryPush(exchange, facts))) {
        throw refuse(
          'push-config-unread',
          'the push notification config could not be checked: it lies past the first 64 KiB of the request',
        );
      }
      return;
    }
    for (const url of urls) {
      const verdict = await guard.check(url);
      if (!verdict.ok) throw refuse(verdict.rule, verdict.message);
    }
  }

  /** A request too large to read whole may hide a push config where the agent would take one. */
  private async mayCarryPush(exchange: Exchange, facts: RequestFacts): Promise<boolean> {
    const operation = facts.operation;
    if (operation === 'CreateTaskPushNotificationConfig') return true;
    // A body that is not a REST call and whose JSON-RPC method lies past the read-ahead (the agent
    // parses the whole body: key order is the sender's) may be any call, a push config's included.
    const unread = operation === 'unknown' && facts.binding !== 'rest';
    const sends = unread || operation === 'SendMessage' || operation === 'SendStreamingMessage';
    return sends && (await this.deps.pushCapable(exchange.upstream.name));
  }
}
