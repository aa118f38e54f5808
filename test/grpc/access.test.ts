// Access control on the gRPC binding (issue #13 rows of test/access/*, issue #16): credentials in
// gRPC metadata (`authorization: Bearer …`, `x-api-key`, a JWT), method rules, rate limits, task
// ownership and the push-webhook guard, driven by raw node:http2 calls (the exact status, message
// and details) and the SDK 1.3.0 gRPC client, against the real SDK 1.3.0 peer's gRPC server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import { startPeerV1 } from '../peers/peer-v1.js';
import type { Peer } from '../peers/peer-common.js';
import { clientV1, sendRequestV1, userMessageV1 } from '../peers/clients.js';
import { withDeadline } from '../peers/deadline.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import { credentials, PRINCIPALS, recordExchanges, unknownTaskId } from '../access/support/harness.js';
import { startIssuer, type Issuer } from '../access/support/issuer.js';
import {
  h2,
  pushConfigRequest,
  rawCall,
  sendMessageRequest,
  SERVICE,
  taskIdOf,
  taskRequests,
  type RawGrpcReply,
  type TaskOperation,
} from './support/raw-grpc.js';

const CODE = { NOT_FOUND: 5, PERMISSION_DENIED: 7, RESOURCE_EXHAUSTED: 8, UNAUTHENTICATED: 16, INVALID_ARGUMENT: 3 };
const LIMIT = { requests: 2, per: '1m', burst: 1 };

let peer: Peer;
let issuer: Issuer;
let gw: RunningGateway;
const { observer, records } = recordExchanges();

beforeAll(async () => {
  [peer, issuer] = await Promise.all([startPeerV1({ stepMs: 20, grpc: true }), startIssuer()]);
  const grpc = { listen: { port: 0 } };
  gw = await startTestGateway(
    {
      v1: { url: peer.url, access: { allow: ['team-a', 'team-jwt'] }, grpc },
      ruled: { url: peer.url, access: { allow: ['team-a', 'ops'], methods: { CancelTask: ['ops'] } }, grpc },
      limited: { url: peer.url, rateLimit: LIMIT, grpc },
      fwd: { url: peer.url, auth: { forward: true }, grpc },
    },
    { admin: { listen: { host: '127.0.0.1', port: 0 } }, auth: { apiKeys: PRINCIPALS, jwt: issuer.config() } },
    [observer],
  );
});
afterAll(async () => {
  await gw?.close();
  await Promise.all([peer?.close(), issuer?.close()]);
});

const portOf = (agent: string) => gw.grpcPorts.agents.get(agent)!;
const agentCalls = (since: number) => peer.requests.slice(since).filter((r) => r.path.startsWith(SERVICE));

async function grpcCall(
  port: number,
  method: string,
  body: Uint8Array,
  headers: Record<string, string> = {},
): Promise<RawGrpcReply> {
  const session = await h2(port);
  try {
    return await rawCall(session, `${SERVICE}${method}`, { headers, body });
  } finally {
    session.destroy();
  }
}

async function taskOf(who: 'alice' | 'bob', agent = 'v1'): Promise<string> {
  const reply = await grpcCall(portOf(agent), 'SendMessage', sendMessageRequest('needs input'), credentials(who));
  expect(reply.status?.code).toBe(0);
  const id = taskIdOf(reply.data);
  expect(id).toBeTypeOf('string');
  return id!;
}

describe('gRPC: who is calling', () => {
  it.each([
    ['no credentials', {}],
    ['a wrong key as Bearer', { authorization: 'Bearer not-a-key-0123456789' }],
    ['a wrong x-api-key', { 'x-api-key': 'not-a-key-0123456789' }],
  ])('%s → UNAUTHENTICATED; the agent hears nothing', async (_what, headers) => {
    const since = peer.requests.length;
    const reply = await grpcCall(portOf('v1'), 'SendMessage', sendMessageRequest('hello?'), headers);
    expect(reply.status?.code).toBe(CODE.UNAUTHENTICATED);
    expect(reply.status?.domain).toBe('a2a-gateway');
    expect(agentCalls(since)).toEqual([]);
  });

  it('an expired JWT → UNAUTHENTICATED; a valid one passes', async () => {
    const expired = await issuer.sign({ expiresIn: -60 });
    const since = peer.requests.length;
    const refused = await grpcCall(portOf('v1'), 'SendMessage', sendMessageRequest('hello?'), {
      authorization: `Bearer ${expired}`,
    });
    expect(refused.status?.code).toBe(CODE.UNAUTHENTICATED);
    expect(agentCalls(since)).toEqual([]);
    const valid = await issuer.sign();
    const passed = await grpcCall(portOf('v1'), 'SendMessage', sendMessageRequest('hello?'), {
      authorization: `Bearer ${valid}`,
    });
    expect(passed.status?.code).toBe(0);
  });

  it.each([
    ['bearer', credentials('alice')],
    ['x-api-key', credentials('alice', 'apiKey')],
  ])('credentials (%s) never reach the agent', async (_style, headers) => {
    const since = peer.requests.length;
    const reply = await grpcCall(portOf('v1'), 'SendMessage', sendMessageRequest('hello?'), headers);
    expect(reply.status?.code).toBe(0);
    const calls = agentCalls(since);
    expect(calls.length).toBe(1);
    expect(calls[0]!.headers.authorization).toBeUndefined();
    expect(calls[0]!.headers['x-api-key']).toBeUndefined();
    expect(JSON.stringify(calls[0]!.headers)).not.toContain(PRINCIPALS.alice.key);
  });

  it('with auth.forward the agent gets them', async () => {
    const since = peer.requests.length;
    const reply = await grpcCall(portOf('fwd'), 'SendMessage', sendMessageRequest('hello?'), credentials('alice'));
    expect(reply.status?.code).toBe(0);
    expect(agentCalls(since)[0]?.headers.authorization).toBe(`Bearer ${PRINCIPALS.alice.key}`);
  });

  it('the SDK 1.3.0 gRPC client sends its credentials as metadata (serviceParameters)', async () => {
    const client = await withDeadline(clientV1(`${gw.url}/agents/v1/`, { transport: 'GRPC' }), 5000, 'card');
    const opts = { serviceParameters: credentials('alice'), signal: AbortSignal.timeout(5000) };
    const answer = await client.sendMessage(sendRequestV1(userMessageV1('what is 6x7?')), opts);
    expect(answer).toBeTruthy();
    const refused = await client
      .sendMessage(sendRequestV1(userMessageV1('what is 6x7?')), { signal: AbortSignal.timeout(5000) })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(String((refused as Error)?.message)).toMatch(/16|unauthenticated/i);
  });
});

describe('gRPC: what a caller may do', () => {
  it('a method rule → PERMISSION_DENIED; the agent sees no call', async () => {
    const task = await taskOf('alice', 'ruled');
    const since = peer.requests.length;
    const reply = await grpcCall(portOf('ruled'), 'CancelTask', taskRequests.CancelTask(task), credentials('alice'));
    expect(reply.status?.code).toBe(CODE.PERMISSION_DENIED);
    expect(reply.status?.domain).toBe('a2a-gateway');
    expect(agentCalls(since)).toEqual([]);
    const ops = await grpcCall(portOf('ruled'), 'GetTask', taskRequests.GetTask(task), credentials('olga'));
    expect(ops.status?.code).toBe(CODE.NOT_FOUND); // olga may call, but the task is alice's
  });

  it('under method rules an rpc the gateway does not know → PERMISSION_DENIED; the agent sees no call', async () => {
    const since = peer.requests.length;
    const reply = await grpcCall(portOf('ruled'), 'NoSuchMethod', taskRequests.GetTask('t-1'), credentials('alice'));
    expect(reply.status?.code).toBe(CODE.PERMISSION_DENIED);
    expect(peer.requests.length).toBe(since);
  });

  it('a caller past its rate limit → RESOURCE_EXHAUSTED; the agent hears nothing of it', async () => {
    const codes: number[] = [];
    for (let i = 0; i < LIMIT.requests + LIMIT.burst + 1; i++) {
      const reply = await grpcCall(portOf('limited'), 'SendMessage', sendMessageRequest('hi?'), credentials('mallory'));
      codes.push(reply.status?.code ?? -1);
    }
    expect(codes.at(-1)).toBe(CODE.RESOURCE_EXHAUSTED);
    expect(codes.filter((c) => c === 0).length).toBeGreaterThan(0);
    const since = peer.requests.length;
    const again = await grpcCall(portOf('limited'), 'SendMessage', sendMessageRequest('hi?'), credentials('mallory'));
    expect(again.status?.code).toBe(CODE.RESOURCE_EXHAUSTED);
    expect(agentCalls(since)).toEqual([]);
    expect(records.at(-1)?.access).toMatchObject({ principal: 'mallory', rateLimited: true });
  });

  it('a push config with a private webhook → INVALID_ARGUMENT (the push guard); the agent sees no call', async () => {
    const task = await taskOf('alice');
    const since = peer.requests.length;
    const reply = await grpcCall(
      portOf('v1'),
      'CreateTaskPushNotificationConfig',
      pushConfigRequest(task, 'http://10.0.0.7/hook'),
      credentials('alice'),
    );
    expect(reply.status?.code).toBe(CODE.INVALID_ARGUMENT);
    expect(reply.status?.reason).toBe('PUSH_URL_REFUSED');
    expect(agentCalls(since)).toEqual([]);
  });
});

describe("gRPC task ownership: bob finds alice's task exactly as absent as a task nobody made", () => {
  let task: string;
  beforeAll(async () => {
    task = await taskOf('alice');
  });

  /** What a caller can compare: status, message and details, the task id masked. */
  const comparable = (reply: RawGrpcReply, id: string) => ({
    trailersOnly: reply.trailers === reply.headers,
    headers: Object.keys(reply.headers)
      .filter((h) => h !== 'date')
      .sort(),
    headerValues: JSON.stringify(reply.headers, ['content-type', 'grpc-accept-encoding', 'grpc-encoding']),
    trailers: Object.keys(reply.trailers ?? {}).sort(),
    contentType: reply.headers['content-type'],
    status: JSON.parse(
      JSON.stringify(reply.status ?? null)
        .split(id)
        .join('<task-id>'),
    ) as unknown,
    message: String(reply.trailers?.['grpc-message'] ?? '')
      .split(id)
      .join('<task-id>'),
    data: reply.data.length,
  });

  const ops: TaskOperation[] = [
    'GetTask',
    'CancelTask',
    'SubscribeToTask',
    'GetTaskPushNotificationConfig',
    'ListTaskPushNotificationConfigs',
    'DeleteTaskPushNotificationConfig',
  ];

  it.each(ops)('%s: NOT_FOUND, the same answer the agent gives for a never-seen id, and no agent call', async (op) => {
    const since = peer.requests.length;
    const bob = await grpcCall(portOf('v1'), op, taskRequests[op](task), credentials('bob'));
    expect(agentCalls(since)).toEqual([]);
    expect(bob.status?.code).toBe(CODE.NOT_FOUND);
    const never = unknownTaskId();
    const direct = await grpcCall(Number(peer.grpcUrl!.split(':')[1]), op, taskRequests[op](never), {});
    expect(comparable(bob, task)).toEqual(comparable(direct, never));
  });

  it('alice still reaches her task', async () => {
    const reply = await grpcCall(portOf('v1'), 'GetTask', taskRequests.GetTask(task), credentials('alice'));
    expect(reply.status?.code).toBe(0);
  });

  it("the SDK 1.3.0 gRPC client raises TaskNotFoundError for bob's GetTask and CancelTask", async () => {
    const client = await withDeadline(clientV1(`${gw.url}/agents/v1/`, { transport: 'GRPC' }), 5000, 'card');
    const opts = () => ({ serviceParameters: credentials('bob'), signal: AbortSignal.timeout(5000) });
    await expect(client.getTask({ tenant: '', id: task }, opts())).rejects.toBeInstanceOf(TaskNotFoundError);
    await expect(client.cancelTask({ tenant: '', id: task, metadata: undefined }, opts())).rejects.toBeInstanceOf(
      TaskNotFoundError,
    );
  });
});
