/**
 * Task affinity over every binding (docs/fleet.md "Task affinity"): two replicas of the official
 * SDK agent — each holding its tasks in its own memory — behind one agent name, driven by the
 * SDK client over JSON-RPC, HTTP+JSON and gRPC (each replica called at its own gRPC address).
 * Every follow-up reaches the replica that created its task; new tasks reach both.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskState } from '@a2a-js/sdk';
import { startPeerV1 } from '../peers/peer-v1.js';
import type { Peer } from '../peers/peer-common.js';
import { clientV1, sendRequestV1, userMessageV1, type TransportName } from '../peers/clients.js';
import { within } from '../peers/deadline.js';
import { asTask } from '../peers/inspect.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';

const TASKS = 20;
let replicas: Peer[] = [];
let gw: RunningGateway;

beforeAll(async () => {
  const peer = () => startPeerV1({ stepMs: 5, grpc: true, extendedCard: true });
  replicas = await Promise.all([peer(), peer()]);
  const upstreams = replicas.map((r) => ({ url: r.url, grpc: r.grpcUrl }));
  gw = await startTestGateway({ echo: { upstreams, grpc: { listen: { port: 0 } } } });
});
afterAll(async () => {
  await gw?.close();
  await Promise.all(replicas.map((r) => r.close()));
});

const sendsAt = (peer: Peer, transport: TransportName) =>
  peer.requests.filter((r) => r.method === 'POST' && (transport === 'GRPC') === r.path.startsWith('/lf.a2a.')).length;

describe.each<TransportName>(['JSONRPC', 'HTTP+JSON', 'GRPC'])('over %s', (transport) => {
  it(`follows ${TASKS} tasks to their replicas, none misrouted, new ones on both`, async () => {
    const client = await clientV1(`${gw.url}/agents/echo/`, { transport });
    const before = replicas.map((r) => sendsAt(r, transport));
    for (let i = 0; i < TASKS; i++) {
      const task = asTask(await client.sendMessage(sendRequestV1(userMessageV1(`needs input ${i}`)), within(10_000)));
      expect((await client.getTask({ tenant: '', id: task.id }, within(5000))).id).toBe(task.id);
      const answer = userMessageV1(`details ${i}`, { taskId: task.id, contextId: task.contextId });
      const done = asTask(await client.sendMessage(sendRequestV1(answer), within(10_000)));
      expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    }
    replicas.forEach((r, i) => expect(sendsAt(r, transport) - before[i]!).toBeGreaterThan(TASKS / 2));
  }, 120_000);

  it('records the replica each call went to (access log, console, /exchanges)', async () => {
    const client = await clientV1(`${gw.url}/agents/echo/`, { transport });
    for (let i = 0; i < 4; i++) {
      const before = replicas.map((r) => sendsAt(r, transport));
      await client.sendMessage(sendRequestV1(userMessageV1(`where ${i}`)), within(10_000));
      const [latest] = gw.local.exchanges({ agent: 'echo', limit: 1 });
      const reached = replicas.findIndex((r, j) => sendsAt(r, transport) > before[j]!);
      expect(latest?.replica).toBe(replicas[reached]!.url.replace(/\/$/, ''));
    }
  }, 60_000);
});

// Each replica's extended card names that replica's own addresses; whichever replica answers, the
// card the client gets points only at the gateway (the rewrite is against the answering replica).
describe.each<TransportName>(['JSONRPC', 'HTTP+JSON', 'GRPC'])('the extended card over %s', (transport) => {
  it('points at the gateway whichever replica answers', async () => {
    const client = await clientV1(`${gw.url}/agents/echo/`, { transport });
    const before = replicas.map((r) => r.requests.length);
    const addresses = replicas.flatMap((r) => [new URL(r.url).host, r.grpcUrl!.replace(/^\w+:\/\//, '')]);
    for (let i = 0; i < 6; i++) {
      const card = await client.getAgentCard(within(5000));
      expect(card.name).toContain('(extended)');
      for (const { url } of card.supportedInterfaces)
        for (const address of addresses) expect(url, `${url} names replica ${address}`).not.toContain(address);
    }
    replicas.forEach((r, i) => expect(r.requests.length).toBeGreaterThan(before[i]!));
  }, 60_000);
});
