// The timeout rescue on a translated call (docs/translation.md): a 1.0 client's blocking send to
// a 0.3 SDK agent, longer than the client's deadline, is answered inside it with the task in 1.0,
// the rescue's own calls made in 0.3; and the same send that settles in time, translated whole.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPeerV03 } from '../peers/peer-v03.js';
import type { Peer } from '../peers/peer-common.js';
import { within } from '../peers/deadline.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';

let peer: Peer;
let gateway: RunningGateway;

beforeAll(async () => {
  peer = await startPeerV03({ stepMs: 20 });
  const timeoutRescue = { enabled: true, clientTimeout: '2s', margin: '500ms', pollInitial: '100ms' };
  gateway = await startTestGateway({ old: { url: peer.url, translate: { agentVersion: '0.3' }, timeoutRescue } });
});
afterAll(async () => {
  await gateway?.close();
  await peer?.close();
});

async function send(text: string) {
  const message = { messageId: `m-${text}`, role: 'ROLE_USER', parts: [{ text }] };
  const res = await fetch(`${gateway.url}/agents/old/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 'send-1', method: 'SendMessage', params: { message } }),
    ...within(5000),
  });
  const answer = (await res.json()) as { id: string; result: { task: { id: string; status: { state: string } } } };
  return { rescue: res.headers.get('a2a-gateway-rescue'), answer };
}

describe('a translated blocking send with the timeout rescue', () => {
  it('answers before the client deadline with the task in 1.0 when the agent is slower', async () => {
    const { rescue, answer } = await send('sleep:2000 take your time');
    expect(rescue).toBe('deadline');
    expect(answer.id).toBe('send-1');
    expect(answer.result.task.id).toBeTruthy();
    expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(answer.result.task.status.state);
  });

  it('answers with the settled task in 1.0 when the agent finishes in time', async () => {
    const { rescue, answer } = await send('sleep:50 quick one');
    expect(rescue).toBe('settled');
    expect(answer.result.task.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('records the exchange as translated and rescued', async () => {
    const res = await fetch(`${gateway.adminUrl}/exchanges?limit=10`, within(2000));
    const { exchanges } = (await res.json()) as { exchanges: Record<string, unknown>[] };
    const rescued = exchanges.find((e) => e['rescue'] && e['translation']);
    expect(rescued).toMatchObject({ translation: { caller: '1.0', agent: '0.3', outcome: 'translated' } });
  });
});
