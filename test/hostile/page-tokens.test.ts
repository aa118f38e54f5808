/**
 * Issue #29 item 6: ListTasks page tokens under task ownership, over real sockets with the SDK
 * 1.3.0 agent (whose `nextPageToken` is base64 of `timestamp|taskId`, the page's last task) and
 * its clients on all three bindings. bob's and alice's tasks alternate, so each of alice's filtered
 * pages ends, at the agent, on one of bob's tasks. Before the fix the gateway passed that token on:
 * alice could read bob's task id out of it, and a token she wrote herself went to the agent. Now:
 * the caller gets the token sealed for her and the agent (src/access/page-tokens.ts), paging still
 * reaches every task of hers, and any token not sealed for this caller and agent is refused as
 * InvalidParams in the caller's protocol, the agent never hearing of the call.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import * as grpc from '@grpc/grpc-js';
import { A2AService } from '@a2a-js/sdk/server/grpc';
import { TaskState, type ListTasksResponse } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { startPeerV1 } from '../peers/peer-v1.js';
import type { Peer } from '../peers/peer-common.js';
import { clientV1, sendRequestV1, userMessageV1, type TransportName } from '../peers/clients.js';
import { within, withDeadline } from '../peers/deadline.js';
import { asTask } from '../peers/inspect.js';
import {
  PRINCIPALS,
  agentCalls,
  call,
  rpc,
  startAccessGateway,
  V1,
  type PrincipalName,
} from '../access/support/harness.js';
import { fetchAs } from '../access/support/auth-clients.js';
import { endpoints } from '../access/support/wire.js';
import { startTestGateway } from '../support/gateway.js';
import { startRedis } from '../support/redis-server.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import type { ExchangeRecord } from '../../src/exchange/record.js';

let peer: Peer;
let gw: RunningGateway;
const created: Record<'alice' | 'bob', string[]> = { alice: [], bob: [] };
const TRANSPORTS: TransportName[] = ['JSONRPC', 'HTTP+JSON', 'GRPC'];
const ROUNDS = 3;

const client = (who: PrincipalName, transport: TransportName, agent = 'x'): Promise<Client> =>
  withDeadline(clientV1(`${gw.url}/agents/${agent}/`, { transport, cardFetchImpl: fetchAs(who) }), 5000, 'card');
/** The credentials as a call's service parameters (gRPC metadata, HTTP headers). */
const as = (who: PrincipalName) => ({ ...within(3000), serviceParameters: { 'x-api-key': PRINCIPALS[who].key } });
const query = (pageToken: string) => ({
  tenant: '',
  contextId: '',
  status: TaskState.TASK_STATE_UNSPECIFIED,
  pageSize: 2,
  pageToken,
  statusTimestampAfter: undefined,
});

/** The SDK agent's own cursor (its in-memory store): what the gateway must never hand out. */
const agentToken = (taskId: string) => Buffer.from(`${Date.now()}|${taskId}`).toString('base64');
/** Every reading of a token a caller might try: as it is, base64 and base64url decoded. */
const readings = (token: string) => [
  token,
  Buffer.from(token, 'base64').toString('latin1'),
  Buffer.from(token, 'base64url').toString('latin1'),
];

beforeAll(async () => {
  peer = await startPeerV1({ grpc: true, stepMs: 20 });
  // Two names for one agent: a token sealed for x must not open for y.
  const agent = () => ({ url: peer.url, grpc: { listen: { port: 0 } }, access: { allow: ['team-a'] } });
  gw = await startAccessGateway({ x: agent(), y: agent() });
  // bob, alice, bob, alice…: the agent lists newest first, so each page of two ends on bob's.
  for (let i = 0; i < ROUNDS; i++) {
    for (const who of ['bob', 'alice'] as const) {
      const c = await client(who, 'JSONRPC');
      created[who].push(asTask(await c.sendMessage(sendRequestV1(userMessageV1('needs input')), as(who))).id);
    }
  }
});
afterAll(async () => {
  await gw?.close();
  await peer?.close();
});

it("the agent's own next page token names a task of the page (bob's, on alice's filtered page)", async () => {
  const direct = await clientV1(`${peer.url}/`, { transport: 'JSONRPC' });
  const page = await direct.listTasks(query(''), within(3000));
  const named = Buffer.from(page.nextPageToken, 'base64').toString('utf8');
  expect(named.endsWith(`|${page.tasks.at(-1)!.id}`)).toBe(true);
  expect(created.bob).toContain(page.tasks.at(-1)!.id);
});

describe.each(TRANSPORTS)('ListTasks pages over %s', (transport) => {
  const pages: ListTasksResponse[] = [];
  beforeAll(async () => {
    const c = await client('alice', transport);
    let token = '';
    do {
      const page = await c.listTasks(query(token), as('alice'));
      pages.push(page);
      token = page.nextPageToken;
    } while (token !== '' && pages.length <= 2 * ROUNDS);
  });

  it('reach every task of alice’s and none of bob’s', () => {
    const listed = pages.flatMap((p) => p.tasks.map((t) => t.id));
    expect([...listed].sort()).toEqual([...created.alice].sort());
    expect(pages.length).toBeGreaterThan(1);
  });

  it("hand out tokens that name no task, read any way (the agent's named bob's)", () => {
    const tokens = pages.map((p) => p.nextPageToken).filter((t) => t !== '');
    expect(tokens.length).toBeGreaterThan(0);
    for (const token of tokens) {
      for (const text of readings(token)) {
        for (const id of [...created.bob, ...created.alice]) expect(text).not.toContain(id);
      }
    }
  });
});

/** A JSON-RPC ListTasks with `params` as given, by `who`, and what the agent heard of it. */
async function jsonRpcList(who: PrincipalName, params: Record<string, unknown>, agent = 'x') {
  const since = peer.requests.length;
  const reply = await call(endpoints(gw.url, agent).jsonrpc, who, {
    body: rpc('ListTasks', { pageSize: 2, ...params }, 11),
    headers: V1,
  });
  return { reply, heard: agentCalls(peer, since).length };
}

/** A REST ListTasks with `search` as the query, by `who`. */
async function restList(who: PrincipalName, search: string, agent = 'x') {
  const since = peer.requests.length;
  const reply = await call(`${endpoints(gw.url, agent).rest}/tasks?pageSize=2&${search}`, who, { headers: V1 });
  return { reply, heard: agentCalls(peer, since).length };
}

async function sealedFor(who: PrincipalName, agent = 'x'): Promise<string> {
  const { reply } = await jsonRpcList(who, {}, agent);
  const token = (reply.json as { result: { nextPageToken: string } }).result.nextPageToken;
  expect(token).not.toBe('');
  return token;
}

function expectInvalidParams(reply: Awaited<ReturnType<typeof call>>, binding: 'jsonrpc' | 'rest'): void {
  if (binding === 'jsonrpc') {
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({ jsonrpc: '2.0', id: 11, error: { code: -32602 } });
    expect(JSON.stringify(reply.json)).toContain('pageToken');
  } else {
    expect(reply.status).toBe(400);
    expect(reply.json).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } });
  }
}

describe('a page token not sealed for this caller and this agent is refused, never forwarded', () => {
  it("alice's own next page works (the control)", async () => {
    const { reply, heard } = await jsonRpcList('alice', { pageToken: await sealedFor('alice') });
    expect((reply.json as { result?: unknown }).result).toBeDefined();
    expect(heard).toBe(1);
  });

  it("bob sending alice's token", async () => {
    const { reply, heard } = await jsonRpcList('bob', { pageToken: await sealedFor('alice') });
    expectInvalidParams(reply, 'jsonrpc');
    expect(heard).toBe(0);
  });

  it('an agent cursor written by the caller, naming another caller’s task (JSON-RPC, both spellings, non-strings)', async () => {
    const forged = agentToken(created.bob[0]!);
    for (const params of [{ pageToken: forged }, { page_token: forged }, { pageToken: [forged] }]) {
      const { reply, heard } = await jsonRpcList('alice', params);
      expectInvalidParams(reply, 'jsonrpc');
      expect(heard, JSON.stringify(params)).toBe(0);
    }
  });

  it('alice’s token for agent x sent to agent y', async () => {
    const { reply, heard } = await jsonRpcList('alice', { pageToken: await sealedFor('alice', 'x') }, 'y');
    expectInvalidParams(reply, 'jsonrpc');
    expect(heard).toBe(0);
  });

  it('REST: a forged cursor, alone or beside a sealed token, in any parameter an agent reads', async () => {
    const forged = encodeURIComponent(agentToken(created.bob[0]!));
    const sealed = encodeURIComponent(await sealedFor('alice'));
    for (const search of [
      `pageToken=${forged}`,
      `page_token=${forged}`,
      `pageToken=${sealed}&pageToken=${forged}`,
      `pageToken=${sealed}&pageToken%5B%5D=${forged}`,
      `pageToken=${sealed}&page_token=${forged}`,
    ]) {
      const { reply, heard } = await restList('alice', search);
      expectInvalidParams(reply, 'rest');
      expect(heard, search).toBe(0);
    }
  });

  it('REST: the sealed token reaches the agent as its own cursor', async () => {
    const sealed = await sealedFor('alice');
    const since = peer.requests.length;
    const { reply } = await restList('alice', `pageToken=${encodeURIComponent(sealed)}`);
    expect(reply.status).toBe(200);
    const heard = agentCalls(peer, since);
    expect(heard).toHaveLength(1);
    const params = new URL(heard[0]!.path, 'http://x').searchParams;
    expect(params.getAll('pageToken')).toHaveLength(1);
    expect(params.get('pageSize')).toBe('2');
    // The agent's cursor: `timestamp|taskId` of a task of the listing.
    const [, taskId] = Buffer.from(params.get('pageToken')!, 'base64').toString('utf8').split('|');
    expect([...created.alice, ...created.bob]).toContain(taskId);
  });

  it('gRPC: a forged cursor and another caller’s token get INVALID_ARGUMENT', async () => {
    for (const [who, token] of [
      ['alice', agentToken(created.bob[0]!)],
      ['bob', await sealedFor('alice')],
    ] as const) {
      const err = await grpcList(who, token);
      expect(err).toBeInstanceOf(Error);
      expect((err as grpc.ServiceError).code).toBe(grpc.status.INVALID_ARGUMENT);
    }
  });

  it('records the refusal as foreign-page-token', async () => {
    const res = await fetch(`${gw.adminUrl}/exchanges?limit=500`, { signal: AbortSignal.timeout(3000) });
    const records = ((await res.json()) as { exchanges: ExchangeRecord[] }).exchanges;
    const refused = records.filter((r) => r.access?.denied === 'foreign-page-token');
    expect(refused.map((r) => r.a2a?.binding)).toEqual(expect.arrayContaining(['jsonrpc', 'rest', 'grpc']));
  });
});

/** ListTasks with grpc-js itself: the answer, or the status it failed with. */
function grpcList(who: PrincipalName, pageToken: string): Promise<unknown> {
  const client = new grpc.Client(`127.0.0.1:${gw.grpcPorts.agents.get('x')}`, grpc.credentials.createInsecure());
  const metadata = new grpc.Metadata();
  metadata.set('a2a-version', '1.0');
  metadata.set('x-api-key', PRINCIPALS[who].key);
  const def = A2AService.listTasks;
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      def.path,
      def.requestSerialize,
      def.responseDeserialize,
      { ...query(pageToken) } as never,
      metadata,
      { deadline: Date.now() + 3000 },
      (err, value) => {
        client.close();
        resolve(err ?? value);
      },
    );
  });
}

describe('replicas sharing a store without auth.pageTokenSecret', () => {
  const startLogged = async (auth: Record<string, unknown>, redisUrl: string) => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _e, done) => (lines.push(String(chunk)), done()) });
    const started = await startTestGateway(
      { a: { url: 'http://127.0.0.1:9' } },
      { auth, state: { store: 'redis', redis: { url: redisUrl } } },
      [],
      pino({ level: 'warn' }, sink),
    );
    await started.close();
    return lines.join('');
  };

  it('are warned at start-up that a page token works only where it was issued; with the secret, not', async () => {
    const redis = await startRedis();
    try {
      const keys = { apiKeys: { alice: { key: PRINCIPALS.alice.key } } };
      expect(await startLogged(keys, redis.url)).toContain('auth.pageTokenSecret is not set');
      const secret = { ...keys, pageTokenSecret: 'x'.repeat(32) };
      expect(await startLogged(secret, redis.url)).not.toContain('pageTokenSecret');
    } finally {
      await redis.stop();
    }
  });
});
