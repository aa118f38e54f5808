// Idempotent sends on translated calls (docs/translation.md): a 1.0 client's repeated SendMessage
// to a 0.3 SDK agent gets the first one's outcome in 1.0 — a task read from the agent in 0.3, or
// the stored direct message — and the agent sees one send.
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
  gateway = await startTestGateway({
    old: { url: peer.url, translate: { agentVersion: '0.3' }, idempotency: { enabled: true } },
  });
});
afterAll(async () => {
  await gateway?.close();
  await peer?.close();
});

async function send(messageId: string, text: string, id: number) {
  const message = { messageId, role: 'ROLE_USER', parts: [{ text }] };
  const res = await fetch(`${gateway.url}/agents/old/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'SendMessage', params: { message } }),
    ...within(5000),
  });
  const answer = (await res.json()) as {
    id: number;
    result: Record<string, { id?: string; status?: { state: string } }>;
  };
  return { replayed: res.headers.get('a2a-gateway-idempotent'), answer };
}

/** The agent's POSTs of this size (the recorder keeps heads only: a repeated message/send has the first's length). */
const postsOf = (length: string | string[] | undefined) =>
  peer.requests.filter((r) => r.method === 'POST' && r.headers['content-length'] === length).length;

describe('a repeated translated send', () => {
  it('gets the first task, read from the 0.3 agent and answered in 1.0, and the agent sees one send', async () => {
    const first = await send('dup-task-1', 'process this', 1);
    expect(first.answer.result['task']!.status!.state).toBe('TASK_STATE_COMPLETED');
    const sendLength = peer.requests.at(-1)!.headers['content-length'];
    const before = postsOf(sendLength);
    const again = await send('dup-task-1', 'process this', 2);
    expect(again.replayed).toBe('replayed');
    expect(again.answer.id).toBe(2);
    expect(again.answer.result['task']!.id).toBe(first.answer.result['task']!.id);
    expect(again.answer.result['task']!.status!.state).toBe('TASK_STATE_COMPLETED');
    // The replay followed the task (tasks/resubscribe, tasks/get): no second message/send.
    expect(postsOf(sendLength)).toBe(before);
  });

  it('gets the first direct message as the first caller got it, in 1.0', async () => {
    const first = await send('dup-q-1', 'what is 6x7?', 3);
    const again = await send('dup-q-1', 'what is 6x7?', 4);
    expect(again.replayed).toBe('replayed');
    expect(again.answer.id).toBe(4);
    expect(again.answer.result['message']).toEqual(first.answer.result['message']);
  });
});
