// The pure pieces of access control, one by one: the rules (admits / mayUse / ruleFor), task
// ownership's verdict, the ListTasks filter, the rate limit, the card's advertised security and
// the A2A errors the gateway answers itself.
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { admits, mayUse, ruleFor, type AccessRules } from '../../src/access/rules.js';
import { checkOwnership } from '../../src/access/ownership.js';
import { LIST_TASKS_MAX_BYTES, listTasksFilter } from '../../src/access/list-tasks.js';
import { RateLimit } from '../../src/access/rate-limit.js';
import { withGatewaySecurity } from '../../src/cards/security.js';
import { A2AError, a2aErrorBody, sendA2AError, taskNotFound } from '../../src/errors/a2a-error.js';
import type { Principal } from '../../src/access/principal.js';
import type { RequestFacts } from '../../src/a2a/request.js';
import type { Operation } from '../../src/a2a/operations.js';
import type { RewriteResult } from '../../src/exchange/answer-rewrite.js';
import { GatewayError } from '../../src/errors/gateway-error.js';

const alice: Principal = { id: 'alice', groups: ['team-a'], via: 'api-key' };
const olga: Principal = { id: 'olga', groups: ['ops', 'oncall'], via: 'jwt' };
const mallory: Principal = { id: 'mallory', groups: [], via: 'api-key' };

describe('rules: admits / ruleFor / mayUse', () => {
  const rules: AccessRules = { allow: ['team-a', 'ops'], methods: { CancelTask: ['ops'], ListTasks: ['alice'] } };

  it('allow admits by group, for every operation methods does not name', () => {
    for (const op of ['SendMessage', 'GetTask', 'SubscribeToTask', 'unknown'] as Operation[]) {
      expect(admits(rules, alice, op), op).toBe(true);
      expect(admits(rules, olga, op), op).toBe(true);
      expect(admits(rules, mallory, op), op).toBe(false);
    }
  });

  it('methods replaces allow for the operations it names (it does not add to it)', () => {
    expect(admits(rules, olga, 'CancelTask')).toBe(true);
    expect(admits(rules, alice, 'CancelTask')).toBe(false);
    // By principal id: only alice may list, although olga's groups are allowed elsewhere.
    expect(admits(rules, alice, 'ListTasks')).toBe(true);
    expect(admits(rules, olga, 'ListTasks')).toBe(false);
    expect(ruleFor(rules, 'CancelTask')).toEqual(['ops']);
    expect(ruleFor(rules, 'GetTask')).toEqual(['team-a', 'ops']);
  });

  it('no allow: any authenticated caller, except where methods says otherwise', () => {
    const open: AccessRules = { methods: { CancelTask: ['ops'] } };
    expect(admits(open, mallory, 'SendMessage')).toBe(true);
    expect(ruleFor(open, 'SendMessage')).toBeUndefined();
    expect(admits(open, mallory, 'CancelTask')).toBe(false);
    expect(admits(open, olga, 'CancelTask')).toBe(true);
  });

  it('an empty list admits nobody', () => {
    const closed: AccessRules = { allow: [], methods: { GetTask: [] } };
    expect(admits(closed, olga, 'SendMessage')).toBe(false);
    expect(admits({ methods: { GetTask: [] } }, olga, 'GetTask')).toBe(false);
  });

  it('ids and groups share one namespace: a group named like a principal admits its members', () => {
    const byName: AccessRules = { allow: ['olga'], methods: {} };
    expect(admits(byName, { id: 'someone', groups: ['olga'], via: 'jwt' }, 'GetTask')).toBe(true);
  });

  it('a method name inherited from Object.prototype is not a rule', () => {
    const weird: AccessRules = { allow: ['team-a'], methods: {} };
    expect(ruleFor(weird, 'toString' as Operation)).toEqual(['team-a']);
    expect(admits(weird, alice, 'constructor' as Operation)).toBe(true);
  });

  it('mayUse: through allow, through any one method rule, or not at all', () => {
    expect(mayUse(rules, alice)).toBe(true);
    expect(mayUse({ allow: ['ops'], methods: { GetTask: ['team-a'] } }, alice)).toBe(true);
    expect(mayUse({ allow: ['ops'], methods: { GetTask: ['ops'] } }, alice)).toBe(false);
    expect(mayUse(rules, mallory)).toBe(false);
    expect(mayUse({ methods: {} }, mallory)).toBe(true);
  });
});

/** Request facts as the classifier gives them, with what a test needs set. */
function facts(operation: Operation, extra: Partial<RequestFacts> = {}): RequestFacts {
  return {
    binding: 'jsonrpc',
    version: '1.0',
    wireVersion: '1.0',
    versionSignal: 'jsonrpc-method',
    operation,
    streaming: operation === 'SendStreamingMessage' || operation === 'SubscribeToTask',
    body: 'complete',
    bodyBytes: 100,
    partial: false,
    malformed: false,
    findings: [],
    ...extra,
  };
}

describe('checkOwnership', () => {
  const owners: Record<string, string> = { 'task-a': 'alice', 'task-b': 'bob' };
  const ownerOf = (id: string) => owners[id];
  const ON_A_TASK: Operation[] = [
    'GetTask',
    'CancelTask',
    'SubscribeToTask',
    'CreateTaskPushNotificationConfig',
    'GetTaskPushNotificationConfig',
    'ListTaskPushNotificationConfigs',
    'DeleteTaskPushNotificationConfig',
    'SendMessage',
    'SendStreamingMessage',
  ];

  it.each(ON_A_TASK)('%s: the owner passes; another principal and an unknown task are "not found"', (op) => {
    expect(checkOwnership(facts(op, { taskId: 'task-a' }), 'alice', ownerOf)).toEqual({ ok: true });
    expect(checkOwnership(facts(op, { taskId: 'task-a' }), 'bob', ownerOf)).toEqual({ ok: false, taskId: 'task-a' });
    expect(checkOwnership(facts(op, { taskId: 'never' }), 'alice', ownerOf)).toEqual({ ok: false, taskId: 'never' });
  });

  it('a send without a task id starts a task: nothing to check', () => {
    expect(checkOwnership(facts('SendMessage'), 'alice', ownerOf)).toEqual({ ok: true });
    expect(checkOwnership(facts('SendStreamingMessage'), 'bob', ownerOf)).toEqual({ ok: true });
  });

  it.each(['SendMessage', 'GetTask', 'CancelTask'] as const)(
    '%s read only in part, with no task id seen: unread (it cannot be checked)',
    (op) => {
      const cut = facts(op, { partial: true, body: 'partial' });
      expect(checkOwnership(cut, 'alice', ownerOf)).toEqual({ ok: false, unread: true });
    },
  );

  // Deny by default: the agent reads spellings the classifier does not (`task_id`, 0.3 `params.id`
  // beside `taskId`); an operation on one task whose id the gateway could not find must not pass
  // unchecked (see ownership.test.ts, "every spelling the agents accept").
  it.each(['GetTask', 'CancelTask', 'GetTaskPushNotificationConfig', 'ListTaskPushNotificationConfigs'] as const)(
    '%s read whole but with no task id found is not passed unchecked',
    (op) => {
      expect(checkOwnership(facts(op), 'alice', ownerOf).ok).toBe(false);
    },
  );

  it('a partial body whose task id was read is checked like a whole one', () => {
    const cut = facts('SendMessage', { partial: true, body: 'partial', taskId: 'task-b' });
    expect(checkOwnership(cut, 'alice', ownerOf)).toEqual({ ok: false, taskId: 'task-b' });
    expect(checkOwnership(cut, 'bob', ownerOf)).toEqual({ ok: true });
  });

  it.each(['ListTasks', 'GetExtendedAgentCard', 'AgentCard'] as const)('%s names no task: passes', (op) => {
    expect(checkOwnership(facts(op, { taskId: 'task-b' }), 'alice', ownerOf)).toEqual({ ok: true });
  });

  it('a task seen without an owner (auth was off then) is nobody’s', () => {
    expect(checkOwnership(facts('GetTask', { taskId: 'orphan' }), 'alice', () => undefined)).toEqual({
      ok: false,
      taskId: 'orphan',
    });
  });
});

describe('listTasksFilter', () => {
  const owners: Record<string, string> = { t1: 'alice', t2: 'bob', t3: 'alice' };
  const ownerOf = (ids: readonly string[]) => Promise.resolve(new Map(ids.map((id) => [id, owners[id]])));
  const tasks = [
    { id: 't1', status: { state: 'TASK_STATE_COMPLETED' } },
    { id: 't2', status: { state: 'TASK_STATE_WORKING' } },
    { id: 't3', status: { state: 'TASK_STATE_INPUT_REQUIRED' } },
    { id: 'unknown-to-the-gateway' },
    { id: 42 },
    null,
  ];
  const HEADERS = ['Content-Type', 'application/json', 'Content-Length', '999', 'ETag', 'W/"x"', 'X-Other', 'kept'];
  const seal = (token: string) => `sealed(${token})`;

  const apply = async (binding: 'jsonrpc' | 'rest', doc: unknown, headers = HEADERS): Promise<RewriteResult> =>
    listTasksFilter('agent', binding, 'alice', ownerOf, seal).apply(Buffer.from(JSON.stringify(doc)), headers);
  const bodyOf = (result: RewriteResult) => {
    if ('refusal' in result) throw new Error(`refused: ${result.refusal.message}`);
    return JSON.parse(result.body.toString('utf8')) as Record<string, any>;
  };

  it('JSON-RPC: keeps the caller’s tasks in result.tasks, totalSize the kept count, nextPageToken sealed, the rest untouched', async () => {
    const doc = { jsonrpc: '2.0', id: 3, result: { tasks, nextPageToken: 'next', pageSize: 50, totalSize: 6 } };
    const out = bodyOf(await apply('jsonrpc', doc));
    expect(out).toEqual({
      jsonrpc: '2.0',
      id: 3,
      result: { tasks: [tasks[0], tasks[2]], nextPageToken: 'sealed(next)', pageSize: 50, totalSize: 2 },
    });
  });

  it('REST: the body is the ListTasksResponse; an empty nextPageToken (the last page) stays empty', async () => {
    const out = bodyOf(await apply('rest', { tasks, totalSize: 6, pageSize: 50, nextPageToken: '' }));
    expect(out.tasks.map((t: { id: string }) => t.id)).toEqual(['t1', 't3']);
    expect(out.totalSize).toBe(2);
    expect(out.nextPageToken).toBe('');
  });

  it('refuses a nextPageToken that is not a string rather than pass it on unsealed', async () => {
    const result = await apply('rest', { tasks, nextPageToken: { forged: true } });
    expect('refusal' in result && result.refusal.message).toContain('nextPageToken is not a string');
  });

  it('without totalSize, none is added', async () => {
    expect(bodyOf(await apply('rest', { tasks })).totalSize).toBeUndefined();
  });

  it('headers: Content-Length is the new body’s, ETag dropped, everything else kept', async () => {
    const result = await apply('rest', { tasks, totalSize: 6 });
    if ('refusal' in result) throw new Error('refused');
    const headers = result.headers;
    const pairs = Object.fromEntries(
      Array.from({ length: headers.length / 2 }, (_, i) => [headers[2 * i]!.toLowerCase(), headers[2 * i + 1]]),
    );
    expect(pairs).toEqual({
      'content-type': 'application/json',
      'x-other': 'kept',
      'content-length': String(result.body.length),
    });
  });

  it('a JSON-RPC error envelope passes unchanged (the same bytes, the same headers)', async () => {
    const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'nope' } }));
    const result = await listTasksFilter('agent', 'jsonrpc', 'alice', ownerOf, seal).apply(body, HEADERS);
    expect(result).toEqual({ body, headers: HEADERS });
    if (!('refusal' in result)) expect(result.body).toBe(body);
  });

  it.each<[string, 'jsonrpc' | 'rest', string]>([
    ['not JSON', 'rest', '{"tasks":['],
    ['a REST body without tasks', 'rest', '{"items":[]}'],
    ['tasks that is not an array', 'rest', '{"tasks":{"t2":{}}}'],
    ['a JSON-RPC result without tasks', 'jsonrpc', '{"jsonrpc":"2.0","id":1,"result":{}}'],
    ['a REST error shape', 'rest', '{"error":{"code":500}}'],
    ['JSON null', 'rest', 'null'],
  ])('%s is refused, never passed on', async (_what, binding, text) => {
    const result = await listTasksFilter('agent', binding, 'alice', ownerOf, seal).apply(Buffer.from(text), HEADERS);
    expect('refusal' in result).toBe(true);
    if ('refusal' in result) {
      expect(result.refusal).toBeInstanceOf(GatewayError);
      expect(result.refusal.reason).toBe('UPSTREAM_INVALID');
      expect(result.refusal.message).toContain('agent "agent"');
    }
  });

  it.each(['gzip', 'br', 'GZIP'])('a %s-encoded answer is refused', async (encoding) => {
    const result = await apply('rest', { tasks }, ['Content-Encoding', encoding]);
    expect('refusal' in result && result.refusal.message).toMatch(/-encoded/);
  });

  it('an identity-encoded answer is filtered', async () => {
    const result = await apply('rest', { tasks }, ['content-encoding', 'identity']);
    expect(bodyOf(result).tasks).toHaveLength(2);
  });

  it('an answer larger than it holds is refused with its oversize error, not passed through', () => {
    const filter = listTasksFilter('agent', 'rest', 'alice', ownerOf, seal);
    expect(filter.maxBytes).toBe(LIST_TASKS_MAX_BYTES);
    expect(filter.oversize).toBeInstanceOf(GatewayError);
    expect(filter.oversize?.reason).toBe('UPSTREAM_INVALID');
    expect(filter.oversize?.message).toMatch(/larger than 8388608 bytes/);
  });

  it('the owners of every listed task id are asked for at once, and only the caller’s are kept', async () => {
    const asked: string[][] = [];
    const filter = listTasksFilter('agent', 'rest', 'bob', (ids) => (asked.push([...ids]), ownerOf(ids)), seal);
    const out = await filter.apply(Buffer.from(JSON.stringify({ tasks })), []);
    expect(asked).toEqual([['t1', 't2', 't3', 'unknown-to-the-gateway']]);
    expect(bodyOf(out).tasks).toEqual([tasks[1]]);
  });
});

describe('RateLimit.take', () => {
  it('requests 3 + burst 2 per minute: five pass, the sixth waits at least a second', async () => {
    const limit = new RateLimit('agent-a', { requests: 3, per: 60_000, burst: 2 });
    for (let i = 0; i < 5; i++) expect(await limit.take('alice'), `take ${i + 1}`).toEqual({ ok: true });
    const verdict = await limit.take('alice');
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) {
      expect(Number.isInteger(verdict.retryAfterSeconds)).toBe(true);
      expect(verdict.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect(verdict.retryAfterSeconds).toBeLessThanOrEqual(60);
    }
    expect(await limit.take('bob')).toEqual({ ok: true });
  });

  it('burst 0: exactly `requests` pass', async () => {
    const limit = new RateLimit('agent-b', { requests: 2, per: 60_000, burst: 0 });
    expect([await limit.take('c'), await limit.take('c')]).toEqual([{ ok: true }, { ok: true }]);
    expect((await limit.take('c')).ok).toBe(false);
  });

  it('a sub-second interval still says Retry-After 1, never 0', async () => {
    const limit = new RateLimit('agent-c', { requests: 1, per: 1000, burst: 0 });
    await limit.take('c');
    expect(await limit.take('c')).toEqual({ ok: false, retryAfterSeconds: 1 });
  });

  it('limits of two agents are counted apart, for the same caller', async () => {
    const a = new RateLimit('agent-d', { requests: 1, per: 60_000, burst: 0 });
    const b = new RateLimit('agent-e', { requests: 1, per: 60_000, burst: 0 });
    expect(await a.take('alice')).toEqual({ ok: true });
    expect(await b.take('alice')).toEqual({ ok: true });
    expect((await a.take('alice')).ok).toBe(false);
  });
});

describe('withGatewaySecurity', () => {
  const v1Card = {
    name: 'agent',
    supportedInterfaces: [{ url: 'http://gw/agents/a/a2a/jsonrpc', protocolBinding: 'JSONRPC' }],
    securitySchemes: { agentOwn: { oauth2SecurityScheme: {} } },
    securityRequirements: [{ schemes: { agentOwn: { list: ['read'] } } }],
    security: [{ stray: [] }],
  };
  const v03Card = {
    name: 'agent',
    url: 'http://gw/agents/a/a2a/jsonrpc',
    protocolVersion: '0.3.0',
    securitySchemes: { agentOwn: { type: 'oauth2', flows: {} } },
    security: [{ agentOwn: ['read'] }],
    securityRequirements: [{ stray: true }],
  };

  it('1.0 card, API keys and JWT: oneof-wrapped schemes, one requirement per scheme, `security` gone', () => {
    const out = withGatewaySecurity(v1Card, { apiKeys: true, jwt: true });
    expect(out['securitySchemes']).toEqual({
      'a2a-gateway-api-key': { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' } },
      'a2a-gateway-bearer': { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } },
    });
    expect(out['securityRequirements']).toEqual([
      { schemes: { 'a2a-gateway-api-key': { list: [] } } },
      { schemes: { 'a2a-gateway-bearer': { list: [] } } },
    ]);
    expect(out).not.toHaveProperty('security');
    expect(out['supportedInterfaces']).toBe(v1Card.supportedInterfaces);
  });

  it('1.0 card, JWT only: a Bearer scheme alone', () => {
    const out = withGatewaySecurity(v1Card, { apiKeys: false, jwt: true });
    expect(Object.keys(out['securitySchemes'] as object)).toEqual(['a2a-gateway-bearer']);
    expect(out['securityRequirements']).toEqual([{ schemes: { 'a2a-gateway-bearer': { list: [] } } }]);
  });

  it('API keys only: the Bearer scheme (a key may come as a Bearer token) has no JWT format', () => {
    const out = withGatewaySecurity(v1Card, { apiKeys: true, jwt: false });
    expect((out['securitySchemes'] as Record<string, unknown>)['a2a-gateway-bearer']).toEqual({
      httpAuthSecurityScheme: { scheme: 'Bearer' },
    });
  });

  it('0.3 card: type-tagged schemes, `security`, and no `securityRequirements`', () => {
    const out = withGatewaySecurity(v03Card, { apiKeys: true, jwt: true });
    expect(out['securitySchemes']).toEqual({
      'a2a-gateway-api-key': { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      'a2a-gateway-bearer': { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
    });
    expect(out['security']).toEqual([{ 'a2a-gateway-api-key': [] }, { 'a2a-gateway-bearer': [] }]);
    expect(out).not.toHaveProperty('securityRequirements');
    expect(out['url']).toBe(v03Card.url);
  });

  it('0.3 ProtoJSON card (the 0.3 HTTP+JSON extended card): 1.0-style schemes under the 0.3 name `security`', () => {
    const out = withGatewaySecurity(v03Card, { apiKeys: true, jwt: false }, '0.3-proto');
    expect(out['securitySchemes']).toEqual({
      'a2a-gateway-api-key': { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' } },
      'a2a-gateway-bearer': { httpAuthSecurityScheme: { scheme: 'Bearer' } },
    });
    expect(out['security']).toEqual([
      { schemes: { 'a2a-gateway-api-key': { list: [] } } },
      { schemes: { 'a2a-gateway-bearer': { list: [] } } },
    ]);
  });

  it('the agent’s signatures go: a JWS over the agent’s card no longer holds', () => {
    const signed = { ...v1Card, signatures: [{ protected: 'x', signature: 'y' }] };
    expect(withGatewaySecurity(signed, { apiKeys: true, jwt: true })).not.toHaveProperty('signatures');
    expect(withGatewaySecurity({ ...v03Card, signatures: [] }, { apiKeys: true, jwt: true })).not.toHaveProperty(
      'signatures',
    );
  });

  it('the agent’s card object is left as it was', () => {
    const before = structuredClone(v1Card);
    withGatewaySecurity(v1Card, { apiKeys: true, jwt: false });
    expect(v1Card).toEqual(before);
  });
});

describe('a2aErrorBody / sendA2AError', () => {
  const notFound = taskNotFound('t-1');
  const info = {
    '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
    reason: 'TASK_NOT_FOUND',
    domain: 'a2a-protocol.org',
    metadata: { taskId: 't-1' },
  };

  it('TaskNotFound, JSON-RPC 1.0: code -32001 with ErrorInfo in data, the request id echoed', () => {
    expect(JSON.parse(a2aErrorBody(notFound, { binding: 'jsonrpc', jsonrpcId: 'req-9', version: '1.0' }))).toEqual({
      jsonrpc: '2.0',
      id: 'req-9',
      error: { code: -32001, message: 'Task not found: t-1', data: [info] },
    });
  });

  it('TaskNotFound, JSON-RPC 0.3: no data, as the 0.3 SDK agent answers; a null id stays null', () => {
    expect(JSON.parse(a2aErrorBody(notFound, { binding: 'jsonrpc', jsonrpcId: null, version: '0.3' }))).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32001, message: 'Task not found: t-1' },
    });
  });

  it('TaskNotFound, REST 1.0: the Google API error body', () => {
    expect(JSON.parse(a2aErrorBody(notFound, { binding: 'rest', jsonrpcId: null, version: '1.0' }))).toEqual({
      error: { code: 404, status: 'NOT_FOUND', message: 'Task not found: t-1', details: [info] },
    });
  });

  it('TaskNotFound, REST 0.3: the SDK’s {code, message}', () => {
    expect(JSON.parse(a2aErrorBody(notFound, { binding: 'rest', jsonrpcId: null, version: '0.3' }))).toEqual({
      code: -32001,
      message: 'Task not found: t-1',
    });
  });

  it('InvalidParams (push URL refused): -32602 / 400 INVALID_ARGUMENT with reason PUSH_URL_REFUSED', () => {
    const refused = new A2AError('InvalidParams', 'push notification URL names …', { rule: 'push-url-address' });
    expect(refused.reason).toBe('PUSH_URL_REFUSED');
    expect(JSON.parse(a2aErrorBody(refused, { binding: 'jsonrpc', jsonrpcId: 1, version: '1.0' })).error).toEqual({
      code: -32602,
      message: 'push notification URL names …',
      data: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'PUSH_URL_REFUSED',
          domain: 'a2a-gateway',
          metadata: { rule: 'push-url-address' },
        },
      ],
    });
    expect(JSON.parse(a2aErrorBody(refused, { binding: 'rest', jsonrpcId: null, version: '1.0' })).error).toMatchObject(
      {
        code: 400,
        status: 'INVALID_ARGUMENT',
      },
    );
  });

  /** The status and headers sendA2AError writes, and the body. */
  function sent(err: A2AError, ctx: Parameters<typeof sendA2AError>[2]) {
    const out: { status?: number; headers?: Record<string, unknown>; body?: string; destroyed?: unknown } = {};
    const res = {
      headersSent: false,
      writeHead(status: number, headers: Record<string, unknown>) {
        out.status = status;
        out.headers = headers;
        return this;
      },
      end(body: string) {
        out.body = body;
      },
      destroy(e: unknown) {
        out.destroyed = e;
      },
    };
    sendA2AError(res as unknown as ServerResponse, err, ctx);
    return out;
  }

  it('JSON-RPC errors go out as 200 (JSON-RPC over HTTP), REST ones with their HTTP status', () => {
    const rpc = sent(notFound, { binding: 'jsonrpc', jsonrpcId: 1, version: '1.0' });
    expect(rpc.status).toBe(200);
    expect(rpc.headers).toMatchObject({ 'content-type': 'application/json', 'cache-control': 'no-store' });
    expect(rpc.headers?.['content-length']).toBe(Buffer.byteLength(rpc.body!));
    expect(sent(notFound, { binding: 'rest', jsonrpcId: null, version: '1.0' })).toMatchObject({
      status: 404,
      headers: { 'content-type': 'application/a2a+json' },
    });
    expect(sent(notFound, { binding: 'rest', jsonrpcId: null, version: '0.3' })).toMatchObject({
      status: 404,
      headers: { 'content-type': 'application/json' },
    });
  });

  it('once headers are sent, the response is destroyed instead', () => {
    const out: { destroyed?: unknown; wrote?: boolean } = {};
    const res = {
      headersSent: true,
      writeHead: () => (out.wrote = true),
      end: () => (out.wrote = true),
      destroy: (e: unknown) => (out.destroyed = e),
    };
    sendA2AError(res as unknown as ServerResponse, notFound, { binding: 'rest', jsonrpcId: null, version: '1.0' });
    expect(out).toEqual({ destroyed: notFound });
  });
});
