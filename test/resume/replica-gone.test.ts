/**
 * A resumed stream whose task's replica is gone (docs/fleet.md "Failure semantics", "Stream
 * resume"): the client gets the events the window kept, once each, then the continuation's
 * refusal in its own protocol — TaskNotFound with reason TASK_REPLICA_GONE, naming the task —
 * rather than a generic cut, and nothing is sent to the surviving replica.
 * Runs the built CLI (`npm test` builds first).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollUntil } from '../peers/deadline.js';
import { startReadyGateway, type GatewayProcess } from '../state/support/replicas.js';
import { startCountingAgent, type CountingAgent } from './support/counting-agent.js';
import { eventData, postSse, readThenCut } from './support/sse-client.js';
import { sendBody, wireHeaders, type Wire } from './support/wire.js';

let agents: CountingAgent[] = [];
let gateway: GatewayProcess;

beforeAll(async () => {
  agents = await Promise.all([startCountingAgent(30), startCountingAgent(30)]);
  gateway = await startReadyGateway(`agents:
  counter:
    upstreams: [${agents.map((a) => `"${a.url}"`).join(', ')}]
    health: { interval: 200ms, timeout: 500ms, healthyThreshold: 1, unhealthyThreshold: 1 }
    resume: { enabled: true, grace: 0s }
`);
}, 30_000);

afterAll(async () => {
  await gateway?.stop();
  await Promise.all(agents.map((a) => a.close()));
});

async function replicaState(url: string): Promise<string | undefined> {
  const res = await fetch(`${gateway.adminUrl}/admin/replicas`);
  const body = (await res.json()) as {
    agents: Array<{ agent: string; replicas: Array<{ url: string; state: string }> }>;
  };
  return body.agents.find((a) => a.agent === 'counter')?.replicas.find((r) => url.startsWith(r.url))?.state;
}

describe('a resume whose task lives on a replica that died', () => {
  // One wire per gateway run: the replica that held the first task is gone for the rest.
  const wire: Wire = 'jsonrpc-1.0';
  it(`${wire}: the window's events once, then TaskNotFound (TASK_REPLICA_GONE)`, async () => {
    const marker = randomUUID();
    const { path, body } = sendBody(wire, marker);
    const url = `${gateway.url}/agents/counter${path}`;
    const before = await readThenCut(url, body, wireHeaders(wire));

    const holder = agents.find((a) => a.answers.some((r) => r.body.includes(marker)))!;
    const survivor = agents.find((a) => a !== holder)!;
    // A2A calls only: the gateway's health checks GET the survivor's card meanwhile.
    const callsAt = (agent: CountingAgent) => agent.answers.filter((r) => r.method === 'POST').length;
    const sentToSurvivor = callsAt(survivor);
    await holder.close();
    await pollUntil(
      () => replicaState(holder.url),
      (s) => s !== undefined && s !== 'healthy',
      15_000,
      'unhealthy',
    );

    const resumed = await postSse(url, body, { ...wireHeaders(wire), 'last-event-id': before[2]!.id! });
    expect(resumed.status).toBe(200);
    const after = await resumed.rest();
    const refusal = JSON.parse(after.at(-1)!.data) as {
      id: unknown;
      error: { code: number; message: string; data: Array<{ reason: string }> };
    };
    expect(refusal.error.code).toBe(-32001);
    expect(refusal.error.data[0]!.reason).toBe('TASK_REPLICA_GONE');
    const taskId =
      JSON.parse(before[0]!.data).result.task?.id ?? JSON.parse(before[0]!.data).result.statusUpdate?.taskId;
    expect(refusal.error.message).toContain(taskId);
    // Before it, the window's events after the client's last one: what the agent wrote, once each.
    const replayed = [...before, ...after.slice(0, -1)].map((e) => e.data);
    const sent = eventData(holder.answers.find((r) => r.body.includes(marker))!.bytes());
    expect(replayed).toEqual(sent.slice(0, replayed.length));
    expect(callsAt(survivor)).toBe(sentToSurvivor);
  });
});
