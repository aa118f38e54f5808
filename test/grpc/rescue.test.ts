// The timeout rescue on the gRPC binding (issue #16 "Done when"): an 8 s task, a client deadline
// of 3 s (grpc-timeout, set by the SDK's gRPC client from its call deadline). Through an agent
// with `timeoutRescue` the client gets the task id inside its deadline; the agent's task is not
// canceled and runs on to COMPLETED. The same call to the same agent without the rescue runs
// into the client's deadline and the client never learns the task id.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPeerV1 } from '../peers/peer-v1.js';
import type { Peer } from '../peers/peer-common.js';
import { clientV1, sendRequestV1, userMessageV1 } from '../peers/clients.js';
import { pollUntil, withDeadline } from '../peers/deadline.js';
import { asTask, stateName } from '../peers/inspect.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import type { ExchangeRecord } from '../../src/exchange/record.js';

let peer: Peer;
let gw: RunningGateway;

beforeAll(async () => {
  peer = await startPeerV1({ stepMs: 30, slowMs: 8000, grpc: true });
  const rescue = { enabled: true, margin: '500ms', pollInitial: '100ms', pollMax: '500ms' };
  gw = await startTestGateway({
    rescued: { url: peer.url, grpc: { listen: { port: 0 } }, timeoutRescue: rescue },
    plain: { url: peer.url, grpc: { listen: { port: 0 } } },
  });
});
afterAll(async () => {
  await gw?.close();
  await peer?.close();
});

/** A gRPC client whose every call has a deadline `ms` from now. */
const clientWithDeadline = (agent: string, ms: number) =>
  withDeadline(
    clientV1(`${gw.url}/agents/${agent}/`, { transport: 'GRPC', grpcCallOptions: { deadline: Date.now() + ms } }),
    2000,
    'card',
  );

async function recordsOf(agent: string): Promise<ExchangeRecord[]> {
  const res = await fetch(`${gw.adminUrl}/exchanges?limit=200`, { signal: AbortSignal.timeout(3000) });
  return ((await res.json()) as { exchanges: ExchangeRecord[] }).exchanges.filter((r) => r.agent === agent);
}

describe('timeout rescue over gRPC', () => {
  it('answers an 8 s blocking send inside a 3 s deadline with the task id; the task runs on to COMPLETED', async () => {
    const c = await clientWithDeadline('rescued', 3000);
    const task = asTask(await c.sendMessage(sendRequestV1(userMessageV1('slow job'))));
    expect(task.id).toBeTruthy();
    expect(['SUBMITTED', 'WORKING']).toContain(stateName(task.status?.state));

    const [record] = (await recordsOf('rescued')).filter((r) => r.a2a?.operation === 'SendMessage');
    expect(record?.a2a?.binding).toBe('grpc');
    expect(record?.rescue).toMatchObject({ strategy: 'poll', outcome: 'deadline', taskId: task.id });
    expect(record?.rescue?.polls).toBeGreaterThan(0);

    // Never canceled: the agent heard no CancelTask, and the task completes at the agent.
    expect(peer.requests.some((r) => r.path.endsWith('/CancelTask'))).toBe(false);
    const later = await clientWithDeadline('rescued', 15_000);
    const done = await pollUntil(
      () => later.getTask({ tenant: '', id: task.id, historyLength: 0 }),
      (t) => stateName(t.status?.state) === 'COMPLETED',
      14_000,
      'the task to complete',
      250,
    );
    expect(stateName(done.status?.state)).toBe('COMPLETED');
  }, 20_000);

  it('passes a direct message on as the agent sent it, and answers a quick task settled', async () => {
    const c = await clientWithDeadline('rescued', 5000);
    const answer = await c.sendMessage(sendRequestV1(userMessageV1('what is this?')));
    expect('parts' in answer && 'role' in answer).toBe(true);
    const task = asTask(await c.sendMessage(sendRequestV1(userMessageV1('quick job'))));
    expect(stateName(task.status?.state)).toBe('COMPLETED');
    const outcomes = (await recordsOf('rescued')).slice(0, 2).map((r) => r.rescue?.outcome);
    expect(outcomes).toEqual(['settled', 'message']);
  });

  it('without the rescue the same call runs into the deadline (DEADLINE_EXCEEDED, no task id)', async () => {
    const c = await clientWithDeadline('plain', 3000);
    await expect(c.sendMessage(sendRequestV1(userMessageV1('slow job')))).rejects.toThrow(
      /DEADLINE_EXCEEDED|deadline/i,
    );
  }, 10_000);
});
