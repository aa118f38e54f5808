/**
 * Task affinity across agent replicas (issue 27, docs/fleet.md "Task affinity"): two replicas of
 * the official SDK agent behind one agent name — each keeps its tasks in its own memory, so a call
 * that reaches the wrong one is TaskNotFound — and two gateway processes sharing one real
 * redis-server. Every task is created through one gateway and followed up through the other:
 * GetTask, SubscribeToTask, the answer to INPUT_REQUIRED, a GetTask after it completed. None may
 * be misrouted, and new conversations must reach both replicas. Then one replica is removed from
 * the config (a reload): its tasks are answered TaskNotFound with reason TASK_REPLICA_GONE in the
 * caller's protocol, never resent elsewhere, and new tasks go to the other.
 * Runs the built CLI (`npm test` builds first).
 */
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskState, type Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { startRedis, type TestRedis } from '../support/redis-server.js';
import { startPeerV1 } from '../peers/peer-v1.js';
import type { Peer } from '../peers/peer-common.js';
import { clientV1, sendRequestV1, userMessageV1 } from '../peers/clients.js';
import { within } from '../peers/deadline.js';
import { asTask } from '../peers/inspect.js';
import { startGatewayProcess, type GatewayProcess, waitReady } from '../state/support/replicas.js';

const TASKS = 200;
const CONCURRENCY = 8;

let redis: TestRedis;
let replicas: Peer[] = [];
let gateways: GatewayProcess[] = [];

function config(upstreams: readonly string[]): string {
  return `listen: { host: 127.0.0.1, port: 0 }
admin: { listen: { host: 127.0.0.1, port: 0 } }
shutdown: { grace: 2s }
log: { access: false }
state:
  store: redis
  redis: { url: "${redis.url}", required: true } # readiness waits for the connection (waitReady)
agents:
  echo:
    upstreams: [${upstreams.map((u) => `"${u}"`).join(', ')}]
    health: { enabled: false }
`;
}

const sendsAt = (peer: Peer) => peer.requests.filter((r) => r.method === 'POST').length;

/** One task's life: created through `a`, every follow-up through `b`. */
async function followUp(a: Client, b: Client, i: number): Promise<Task> {
  const created = asTask(await a.sendMessage(sendRequestV1(userMessageV1(`needs input ${i}`)), within(10_000)));
  expect(created.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
  const got = await b.getTask({ tenant: '', id: created.id }, within(5000));
  expect(got.id).toBe(created.id);
  const abort = new AbortController();
  for await (const event of b.resubscribeTask({ tenant: '', id: created.id }, { signal: abort.signal })) {
    expect(event.payload?.$case).toBe('task');
    break; // the snapshot came from the task's own replica; the rest is not needed
  }
  abort.abort();
  const answer = userMessageV1(`details ${i}`, { taskId: created.id, contextId: created.contextId });
  const done = asTask(await b.sendMessage(sendRequestV1(answer), within(10_000)));
  expect(done.id).toBe(created.id);
  const last = await a.getTask({ tenant: '', id: created.id }, within(5000));
  expect(last.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  return created;
}

beforeAll(async () => {
  redis = await startRedis();
  replicas = await Promise.all([startPeerV1({ stepMs: 5 }), startPeerV1({ stepMs: 5 })]);
  const yaml = config(replicas.map((r) => r.url));
  gateways = await Promise.all([startGatewayProcess(yaml), startGatewayProcess(yaml)]);
  // Ready once each has fetched the agent's card (the SDK client starts from it).
  for (const g of gateways) {
    await waitReady(g);
  }
}, 60_000);

afterAll(async () => {
  await Promise.all(gateways.map((g) => g.stop()));
  await Promise.all(replicas.map((r) => r.close()));
  await redis?.stop();
});

describe('two agent replicas behind two gateway processes on one Redis', () => {
  let clients: Client[] = [];
  const created: Task[] = [];

  it(`follows ${TASKS} tasks to the replica that created them, none misrouted`, async () => {
    clients = await Promise.all(gateways.map((g) => clientV1(`${g.url}/agents/echo/`, { transport: 'JSONRPC' })));
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < TASKS; i = next++) {
        const [a, b] = i % 2 === 0 ? clients : [clients[1]!, clients[0]!];
        created.push(await followUp(a!, b!, i));
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    expect(created).toHaveLength(TASKS);
    // New conversations went to both replicas (least outstanding, ties round robin).
    for (const replica of replicas) expect(sendsAt(replica)).toBeGreaterThan(TASKS / 4);
  }, 240_000);

  it('answers TaskNotFound (TASK_REPLICA_GONE) for the tasks of a removed replica, and sends new tasks to the other', async () => {
    const [kept, removed] = replicas as [Peer, Peer];
    const gone = await gatewayTaskOn(removed);
    for (const g of gateways) {
      writeFileSync(g.configPath, config([kept.url]));
      await g.reload();
    }
    const before = sendsAt(removed);
    for (const g of gateways) {
      const res = await fetch(`${g.url}/agents/echo/a2a/jsonrpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 'gone-1', method: 'GetTask', params: { id: gone } }),
      });
      const body = (await res.json()) as { id: string; error: { code: number; message: string; data: any[] } };
      expect(body.id).toBe('gone-1');
      expect(body.error.code).toBe(-32001);
      expect(body.error.message).toContain(gone);
      expect(body.error.data[0]).toMatchObject({ reason: 'TASK_REPLICA_GONE', domain: 'a2a-gateway' });
    }
    expect(sendsAt(removed)).toBe(before); // never resent, to it or anywhere
    const fresh = asTask(await clients[0]!.sendMessage(sendRequestV1(userMessageV1('process this')), within(10_000)));
    expect(fresh.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(sendsAt(removed)).toBe(before);
  }, 60_000);

  /** A task of this test that lives on `replica` (its GetTask reached it). */
  async function gatewayTaskOn(replica: Peer): Promise<string> {
    for (const task of created) {
      const seen = replica.requests.length;
      await clients[0]!.getTask({ tenant: '', id: task.id }, within(5000));
      if (replica.requests.length > seen) return task.id;
    }
    throw new Error('no task lives on this replica');
  }
});
