/**
 * A rescued answer is a body the gateway wrote (the send's envelope around the settled task), so
 * the agent's ETag and digests of its first reply do not ride on it (issue 30 item 6; RFC 9110
 * §8.8.3: a strong validator names one representation). A passed-on reply keeps them.
 */
import { describe, expect, it } from 'vitest';
import { scriptedUpstream } from '../support/scripted-upstream.js';
import { rescuedSend } from './support/rescued-send.js';

const task = (state: string) => ({ id: 't-etag', contextId: 'c-etag', status: { state } });
const AGENT_HEADERS = {
  'content-type': 'application/json',
  etag: '"agent-etag-1"',
  'content-md5': 'Q2hlY2sgSW50ZWdyaXR5IQ==',
  'repr-digest': 'sha-256=:AAAA:',
  'x-agent-note': 'kept',
};

/** An agent that answers SendMessage with a WORKING task (or a direct message), GetTask COMPLETED. */
function agent(answer: 'task' | 'message') {
  return scriptedUpstream(async (req, res) => {
    let raw = '';
    for await (const chunk of req) raw += String(chunk);
    if (req.method === 'GET') return void res.writeHead(404).end();
    const { id, method } = JSON.parse(raw) as { id: unknown; method: string };
    const result =
      method === 'GetTask'
        ? task('TASK_STATE_COMPLETED')
        : answer === 'task'
          ? { task: task('TASK_STATE_WORKING') }
          : { message: { messageId: 'm-a', role: 'ROLE_AGENT', parts: [{ text: 'done' }] } };
    res.writeHead(200, AGENT_HEADERS).end(JSON.stringify({ jsonrpc: '2.0', id, result }));
  });
}

async function blockingSend(answer: 'task' | 'message') {
  const upstream = await agent(answer);
  try {
    return await rescuedSend(upstream.url);
  } finally {
    await upstream.close();
  }
}

describe("the rescue and the agent's validators", () => {
  it('a rescued answer drops the first reply’s ETag and digests, keeps its other headers', async () => {
    const { headers, doc } = await blockingSend('task');
    expect(headers['a2a-gateway-rescue']).toBe('settled');
    expect(doc.result).toMatchObject({ task: { id: 't-etag', status: { state: 'TASK_STATE_COMPLETED' } } });
    for (const name of ['etag', 'content-md5', 'repr-digest']) expect(headers, name).not.toHaveProperty(name);
    expect(headers['x-agent-note']).toBe('kept');
    expect(Number(headers['content-length'])).toBe(Buffer.byteLength(JSON.stringify(doc)));
  });

  it('a direct message passed on keeps the agent’s ETag: its bytes are the agent’s', async () => {
    const { headers } = await blockingSend('message');
    expect(headers['a2a-gateway-rescue']).toBeUndefined();
    expect(headers.etag).toBe('"agent-etag-1"');
  });
});
