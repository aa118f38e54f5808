/**
 * Task stories are kept only for tasks the agent confirmed (an id that came back in its answer):
 * ids that only a client named must not make stories, or any client could fill the tracker (and
 * its bounded store would forget real tasks to make room).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptedUpstream } from '../support/scripted-upstream.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';

let upstream: Awaited<ReturnType<typeof scriptedUpstream>>;
let gateway: RunningGateway;

beforeAll(async () => {
  upstream = await scriptedUpstream((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const rpc = body ? JSON.parse(body) : {};
      const id = rpc.params?.id ?? rpc.params?.message?.taskId;
      const result =
        id === 'real-1'
          ? { id: 'real-1', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } }
          : rpc.method === 'SendMessage'
            ? { message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'no task here' }] } }
            : {};
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: rpc.id ?? null, result }));
    });
  });
  gateway = await startTestGateway({ a: { url: upstream.url } });
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

const call = (method: string, params: unknown) =>
  fetch(`${gateway.url}/agents/a/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  }).then((r) => r.json());
const story = (id: string) => fetch(`${gateway.adminUrl}/tasks/a/${id}`).then((r) => r.status);

describe('task stories', () => {
  it('are not made for task ids only the client named', async () => {
    await call('GetTask', { id: 'made-up-1' });
    await call('SendMessage', { message: { messageId: 'x', role: 'ROLE_USER', taskId: 'made-up-2', parts: [] } });
    expect(await story('made-up-1')).toBe(404);
    expect(await story('made-up-2')).toBe(404);
  });

  it('are made for tasks the agent answers with', async () => {
    await call('GetTask', { id: 'real-1' });
    expect(await story('real-1')).toBe(200);
  });
});
