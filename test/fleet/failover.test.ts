/**
 * A replica dies (docs/fleet.md "Health"): two replicas of the official SDK agent behind one agent
 * name, two built gateway processes on one real redis-server, health checks every 200 ms. Tasks
 * are created on both replicas; then one replica's server is closed. Once each gateway's checks
 * mark it unhealthy (polled on /admin/replicas and /metrics, no time asserted), every call about
 * its tasks — GetTask, SubscribeToTask, SendMessage with its taskId, over JSON-RPC and HTTP+JSON,
 * through either gateway — is answered TaskNotFound with reason TASK_REPLICA_GONE and never
 * reaches the survivor, and new conversations all go to the survivor. Restarted on its port, the
 * replica is healthy again and takes new conversations.
 * Runs the built CLI (`npm test` builds first).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskState } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { startRedis, type TestRedis } from '../support/redis-server.js';
import { startPeerV1 } from '../peers/peer-v1.js';
import type { Peer } from '../peers/peer-common.js';
import { clientV1, sendRequestV1, userMessageV1 } from '../peers/clients.js';
import { pollUntil, within } from '../peers/deadline.js';
import { asTask } from '../peers/inspect.js';
import { startGatewayProcess, type GatewayProcess } from '../state/support/replicas.js';

let redis: TestRedis;
let replicas: Peer[] = [];
let gateways: GatewayProcess[] = [];
let clients: Client[] = [];

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
    health: { interval: 200ms, timeout: 500ms, healthyThreshold: 1, unhealthyThreshold: 2, consecutiveFailures: 0 }
`;
}

/** What reached a replica besides the gateways' health checks (GETs of its card). */
const callsAt = (peer: Peer) => peer.requests.filter((r) => !r.path.endsWith('/.well-known/agent-card.json')).length;
const sendsAt = (peer: Peer) => peer.requests.filter((r) => r.method === 'POST').length;

interface ReplicaRow {
  url: string;
  state: string;
  drained: boolean;
  outstanding: number;
}

async function replicaRows(g: GatewayProcess): Promise<ReplicaRow[]> {
  const res = await fetch(`${g.adminUrl}/admin/replicas`);
  const body = (await res.json()) as { agents: Array<{ agent: string; replicas: ReplicaRow[] }> };
  return body.agents.find((a) => a.agent === 'echo')!.replicas;
}

/** `a2a_replica_healthy` of `replica` on the gateway's /metrics, or undefined without a sample. */
async function healthyMetric(g: GatewayProcess, replica: string): Promise<number | undefined> {
  const text = await (await fetch(`${g.adminUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`a2a_replica_healthy{agent="echo",replica="${replica}"}`));
  return line === undefined ? undefined : Number(line.split(' ').pop());
}

async function untilState(g: GatewayProcess, replica: string, state: string, metric: number): Promise<void> {
  const what = `${replica} ${state} on ${g.adminUrl}`;
  await pollUntil(
    () => replicaRows(g),
    (rows) => rows.find((r) => r.url === replica)?.state === state,
    20_000,
    what,
  );
  await pollUntil(
    () => healthyMetric(g, replica),
    (v) => v === metric,
    20_000,
    `${what} (metric)`,
  );
}

async function rpc(g: GatewayProcess, method: string, params: object): Promise<{ status: number; text: string }> {
  const res = await fetch(`${g.url}/agents/echo/a2a/jsonrpc`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'a2a-version': '1.0',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: `gone-${method}`, method, params }),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, text: await res.text() };
}

/** The JSON-RPC error in a JSON body or in an SSE stream's first data line. */
function rpcError(text: string): { code: number; message: string; data: Array<Record<string, unknown>> } {
  const json = text.trimStart().startsWith('{') ? text : /^data: ?(.*)$/m.exec(text)![1]!;
  return (JSON.parse(json) as { error: { code: number; message: string; data: Array<Record<string, unknown>> } }).error;
}

/** Creates tasks (INPUT_REQUIRED: they wait for an answer) until each replica holds one. */
async function tasksOnEach(): Promise<Map<Peer, { id: string; contextId: string }>> {
  const on = new Map<Peer, { id: string; contextId: string }>();
  for (let i = 0; on.size < replicas.length && i < 20; i++) {
    const before = replicas.map(sendsAt);
    const client = clients[i % clients.length]!;
    const task = asTask(await client.sendMessage(sendRequestV1(userMessageV1(`needs input ${i}`)), within(10_000)));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const where = replicas.find((r, k) => sendsAt(r) > before[k]!)!;
    if (!on.has(where)) on.set(where, { id: task.id, contextId: task.contextId });
  }
  return on;
}

beforeAll(async () => {
  redis = await startRedis();
  replicas = await Promise.all([startPeerV1({ stepMs: 5 }), startPeerV1({ stepMs: 5 })]);
  const yaml = config(replicas.map((r) => r.url));
  gateways = await Promise.all([startGatewayProcess(yaml), startGatewayProcess(yaml)]);
  for (const g of gateways) {
    const ready = () => fetch(`${g.url}/readyz`).then((r) => r.status);
    await pollUntil(ready, (s) => s === 200, 15_000, 'readiness');
  }
  clients = await Promise.all(gateways.map((g) => clientV1(`${g.url}/agents/echo/`, { transport: 'JSONRPC' })));
}, 60_000);

afterAll(async () => {
  await Promise.all(gateways.map((g) => g.stop()));
  await Promise.all(replicas.map((r) => r.close()));
  await redis?.stop();
});

describe('a replica dies behind two gateway processes', () => {
  let tasks: Map<Peer, { id: string; contextId: string }>;

  it('holds tasks on both replicas, both healthy', async () => {
    tasks = await tasksOnEach();
    expect(tasks.size).toBe(2);
    for (const g of gateways) for (const r of replicas) await untilState(g, r.url, 'healthy', 1);
  }, 60_000);

  it('marks the dead replica unhealthy on /admin/replicas and in a2a_replica_healthy, on each gateway', async () => {
    await replicas[1]!.close();
    for (const g of gateways) {
      await untilState(g, replicas[1]!.url, 'unhealthy', 0);
      const survivor = (await replicaRows(g)).find((r) => r.url === replicas[0]!.url)!;
      expect(survivor).toMatchObject({ state: 'healthy', drained: false });
      // One log line for the change (the log is written in batches: wait for it).
      const change = `"agent":"echo","replica":"${replicas[1]!.url}","from":"healthy","to":"unhealthy"`;
      await pollUntil(
        async () => g.log(),
        (log) => log.includes(change),
        10_000,
        'the change logged',
      );
      expect(g.log()).toContain('replica health changed');
    }
  }, 60_000);

  it("answers its tasks TaskNotFound (TASK_REPLICA_GONE) through both gateways, never at the survivor's", async () => {
    const [survivor, dead] = replicas as [Peer, Peer];
    const gone = tasks.get(dead)!;
    const before = callsAt(survivor);
    const answer = userMessageV1('the details', { taskId: gone.id, contextId: gone.contextId });
    const message = { ...answer, messageId: randomUUID() };
    for (const g of gateways) {
      for (const [method, params] of [
        ['GetTask', { id: gone.id }],
        ['SubscribeToTask', { id: gone.id }],
        [
          'SendMessage',
          { message: { messageId: message.messageId, role: 'ROLE_USER', parts: [{ text: 'x' }], taskId: gone.id } },
        ],
      ] as const) {
        const { text } = await rpc(g, method, params);
        const error = rpcError(text);
        expect(error.code, `${method}: ${text}`).toBe(-32001);
        expect(error.message).toContain(gone.id);
        expect(error.data[0]).toMatchObject({ reason: 'TASK_REPLICA_GONE', domain: 'a2a-gateway' });
      }
      const rest = await fetch(`${g.url}/agents/echo/a2a/rest/tasks/${gone.id}`, { headers: { 'a2a-version': '1.0' } });
      expect(rest.status).toBe(404);
      const body = (await rest.json()) as { error: { status: string; details: Array<Record<string, unknown>> } };
      expect(body.error.status).toBe('NOT_FOUND');
      expect(body.error.details.find((d) => d['reason'])).toMatchObject({ reason: 'TASK_REPLICA_GONE' });
    }
    expect(callsAt(survivor)).toBe(before);
  }, 60_000);

  it('sends every new conversation to the survivor', async () => {
    const [survivor] = replicas as [Peer, Peer];
    const before = sendsAt(survivor);
    for (let i = 0; i < 6; i++) {
      const client = clients[i % clients.length]!;
      const task = asTask(await client.sendMessage(sendRequestV1(userMessageV1(`process this ${i}`)), within(10_000)));
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    }
    expect(sendsAt(survivor)).toBe(before + 6);
  }, 60_000);

  it('takes the replica back once it answers again, and gives it new conversations', async () => {
    const dead = replicas[1]!;
    const restarted = await startPeerV1({ stepMs: 5, port: dead.port });
    replicas[1] = restarted;
    for (const g of gateways) await untilState(g, restarted.url, 'healthy', 1);
    for (let i = 0; i < 6; i++) {
      const client = clients[i % clients.length]!;
      const task = asTask(await client.sendMessage(sendRequestV1(userMessageV1(`process this ${i}`)), within(10_000)));
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    }
    // Least outstanding, ties round robin: sequential sends alternate between the two.
    expect(sendsAt(restarted)).toBeGreaterThan(0);
  }, 60_000);
});
