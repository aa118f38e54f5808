/**
 * What the gateway does when the shared store cannot answer a decision that needs it (docs/deploying.md
 * "Scaling out"): an ownership check fails closed by default (503 in the caller's protocol,
 * nothing reaches the agent) or, with `failClosed: false`, admits; readiness follows Redis only
 * with `required: true`. A real redis-server, stopped for the test.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../support/redis-server.js';
import { startPeerV1 } from '../peers/peer-v1.js';
import type { Peer } from '../peers/peer-common.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import { V1, agentCalls, call, rpc, startAccessGateway, unknownTaskId } from '../access/support/harness.js';
import { pollUntil } from '../peers/deadline.js';

let redis: TestRedis;
let peer: Peer;
let closed: RunningGateway;
let open: RunningGateway;
let required: RunningGateway;

const gateway = (redisExtra: Record<string, unknown>) =>
  startAccessGateway(
    { reviewer: { url: peer.url } },
    { state: { store: 'redis', redis: { url: redis.url, ...redisExtra } } },
  );
const readiness = async (g: RunningGateway) => (await fetch(`${g.url}/readyz`)).status;
const storeUp = async (g: RunningGateway) =>
  /a2a_state_store_up 1/.test(await (await fetch(`${g.adminUrl}/metrics`)).text());

beforeAll(async () => {
  [redis, peer] = await Promise.all([startRedis(), startPeerV1()]);
  [closed, open, required] = await Promise.all([
    gateway({}),
    gateway({ failClosed: false }),
    gateway({ required: true }),
  ]);
  for (const g of [closed, open, required])
    await pollUntil(
      () => storeUp(g),
      (up) => up,
      10_000,
      'connected',
    );
  await pollUntil(
    () => readiness(required),
    (s) => s === 200,
    10_000,
    'ready',
  );
  await redis.stop();
  for (const g of [closed, open, required])
    await pollUntil(
      () => storeUp(g),
      (up) => !up,
      10_000,
      'store down',
    );
});

afterAll(async () => {
  await Promise.all([closed, open, required].map((g) => g?.close()));
  await Promise.all([redis?.stop(), peer?.close()]);
});

describe('with Redis down', () => {
  it('an ownership check fails closed: 503 in the caller’s protocol, and the agent hears nothing', async () => {
    const since = peer.requests.length;
    const rpcReply = await call(`${closed.url}/agents/reviewer/a2a/jsonrpc`, 'alice', {
      headers: V1,
      body: rpc('GetTask', { id: unknownTaskId() }, 'req-9'),
    });
    expect(rpcReply.status).toBe(503);
    expect(rpcReply.headers.get('retry-after')).toBe('1');
    expect(rpcReply.json).toMatchObject({
      jsonrpc: '2.0',
      id: 'req-9',
      error: { message: expect.stringMatching(/task ownership cannot be checked/) },
    });
    const restReply = await call(`${closed.url}/agents/reviewer/a2a/rest/tasks/${unknownTaskId()}`, 'alice', {
      headers: V1,
    });
    expect(restReply.status).toBe(503);
    expect(restReply.json).toMatchObject({ error: { status: 'UNAVAILABLE' } });
    expect(JSON.stringify(restReply.json)).toContain('STATE_UNAVAILABLE');
    expect(agentCalls(peer, since)).toEqual([]);
    const metrics = await (await fetch(`${closed.adminUrl}/metrics`)).text();
    expect(metrics).toMatch(/a2a_state_store_errors_total\{operation="read"\} [1-9]/);
  });

  it('with failClosed: false the call is admitted and the agent answers it', async () => {
    const since = peer.requests.length;
    const reply = await call(`${open.url}/agents/reviewer/a2a/jsonrpc`, 'alice', {
      headers: V1,
      body: rpc('GetTask', { id: unknownTaskId() }),
    });
    expect((reply.json as { error?: { code: number } }).error?.code).toBe(-32001); // the agent's TaskNotFound
    expect(agentCalls(peer, since)).toHaveLength(1);
  });

  it('a call that needs no lookup goes through as ever', async () => {
    const reply = await call(`${closed.url}/agents/reviewer/a2a/jsonrpc`, 'alice', {
      headers: V1,
      body: rpc('SendMessage', { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'what is A2A?' }] } }),
    });
    expect(reply.status).toBe(200);
    expect(reply.json).toHaveProperty('result');
  });

  it('readiness is unaffected unless state.redis.required, which answers 503 until Redis is back', async () => {
    expect(await readiness(closed)).toBe(200);
    expect(await readiness(required)).toBe(503);
    expect(await (await fetch(`${required.adminUrl}/readyz`)).json()).toEqual({
      status: 'not ready',
      stateStore: 'down',
    });
    expect(await (await fetch(`${required.url}/readyz`)).json()).toEqual({ status: 'not ready' });
    await redis.start();
    await pollUntil(
      () => readiness(required),
      (s) => s === 200,
      15_000,
      'ready again',
    );
  });
});
