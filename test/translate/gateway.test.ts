// What the gateway does around a translation (docs/translation.md), over real sockets: the card in
// the caller's version, refusals in the caller's protocol, answers it cannot translate, calls in
// the agent's own version untouched, and the metric.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startPeerV03 } from '../peers/peer-v03.js';
import type { Peer } from '../peers/peer-common.js';
import { within } from '../peers/deadline.js';
import { scriptedUpstream } from '../support/scripted-upstream.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';

const rpc = (method: string, params: unknown, id: number | string = 7) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params });

async function post(url: string, body: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
    ...within(3000),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

describe('a 0.3 agent behind translate', () => {
  let peer: Peer;
  let gateway: RunningGateway;
  let agentUrl: string;
  beforeAll(async () => {
    peer = await startPeerV03({ stepMs: 20, extendedCard: true });
    gateway = await startTestGateway({ peer: { url: peer.url, translate: { agentVersion: '0.3' } } });
    agentUrl = `${gateway.url}/agents/peer`;
  });
  afterAll(async () => {
    await gateway?.close();
    await peer?.close();
  });

  it('serves a 1.0 card to A2A-Version: 1.0 and the 0.3 card to others, varying by version', async () => {
    const v1 = await fetch(`${agentUrl}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } });
    const card1 = (await v1.json()) as Record<string, unknown>;
    expect(v1.headers.get('vary')).toMatch(/A2A-Version/i);
    expect(card1['url']).toBeUndefined();
    const interfaces = card1['supportedInterfaces'] as { url: string; protocolVersion: string }[];
    expect(interfaces.map((i) => i.protocolVersion)).toEqual(expect.arrayContaining(['1.0', '0.3']));
    for (const i of interfaces) expect(i.url.startsWith(agentUrl)).toBe(true);
    expect((card1['capabilities'] as Record<string, unknown>)['extendedAgentCard']).toBe(true);

    const v03 = await fetch(`${agentUrl}/.well-known/agent-card.json`);
    const card03 = (await v03.json()) as Record<string, unknown>;
    expect(v03.headers.get('vary')).toMatch(/A2A-Version/i);
    expect(String(card03['url']).startsWith(agentUrl)).toBe(true);
    expect(card03['supportedInterfaces']).toBeUndefined();
    expect(v1.headers.get('etag')).not.toBe(v03.headers.get('etag'));
  });

  it('refuses ListTasks in the caller protocol: JSON-RPC -32004 with the id, REST 400 UNSUPPORTED_OPERATION', async () => {
    const before = peer.requests.length;
    const jsonrpc = await post(`${agentUrl}/a2a/jsonrpc`, rpc('ListTasks', {}, 'list-1'), { 'A2A-Version': '1.0' });
    const answer = JSON.parse(jsonrpc.text) as { id: unknown; error: { code: number; data: { reason: string }[] } };
    expect(answer.id).toBe('list-1');
    expect(answer.error.code).toBe(-32004);
    expect(answer.error.data[0]!.reason).toBe('UNSUPPORTED_OPERATION');

    const res = await fetch(`${agentUrl}/a2a/rest/tasks`, { headers: { 'A2A-Version': '1.0' }, ...within(3000) });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { details: { reason: string }[] } };
    expect(body.error.details[0]!.reason).toBe('UNSUPPORTED_OPERATION');
    // Never sent: the agent saw neither.
    expect(peer.requests.length).toBe(before);
  });

  it('refuses a named tenant, which 0.3 has no room for, with InvalidParams reason UNTRANSLATABLE', async () => {
    const message = { messageId: 'm-t', role: 'ROLE_USER', parts: [{ text: 'hello?' }] };
    const sent = await post(`${agentUrl}/a2a/jsonrpc`, rpc('SendMessage', { tenant: 'acme', message }), {
      'A2A-Version': '1.0',
    });
    const answer = JSON.parse(sent.text) as {
      id: number;
      error: { code: number; message: string; data: { reason: string }[] };
    };
    expect(answer.id).toBe(7);
    expect(answer.error.code).toBe(-32602);
    expect(answer.error.message).toMatch(/tenant/);
    expect(answer.error.data[0]!.reason).toBe('UNTRANSLATABLE');
  });

  it('refuses a tenant in the HTTP+JSON path too (0.3 routes have no tenant segment)', async () => {
    const before = peer.requests.length;
    const message = { messageId: 'm-p', role: 'ROLE_USER', parts: [{ text: 'hello?' }] };
    const res = await fetch(`${agentUrl}/a2a/rest/acme/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ message }),
      ...within(3000),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { message: string; details: { reason: string }[] } };
    expect(body.error.message).toMatch(/no tenants \(acme\)/);
    expect(body.error.details[0]!.reason).toBe('UNTRANSLATABLE');
    expect(peer.requests.length).toBe(before);
  });

  it('says on the admin catalog that the agent is translated, and not on the public one', async () => {
    const admin = (await (await fetch(`${gateway.adminUrl}/agents`, within(2000))).json()) as {
      agents: Record<string, unknown>[];
    };
    expect(admin.agents.find((a) => a['name'] === 'peer')).toMatchObject({ translate: { agentVersion: '0.3' } });
    const open = (await (await fetch(`${gateway.url}/agents`, within(2000))).json()) as {
      agents: Record<string, unknown>[];
    };
    expect(open.agents.find((a) => a['name'] === 'peer')).not.toHaveProperty('translate');
  });

  it('counts translated calls by both versions and outcome', async () => {
    const message = { messageId: 'm-c', role: 'ROLE_USER', parts: [{ text: 'what is 2+2?' }] };
    const answered = await post(`${agentUrl}/a2a/jsonrpc`, rpc('SendMessage', { message }), { 'A2A-Version': '1.0' });
    expect(JSON.parse(answered.text)).toMatchObject({ result: { message: { role: 'ROLE_AGENT' } } });
    const res = await fetch(`${gateway.adminUrl}/metrics`, within(3000));
    const text = await res.text();
    expect(text).toMatch(
      /a2a_translations_total\{agent="peer",caller_version="1.0",agent_version="0.3",outcome="translated"\} [1-9]/,
    );
    expect(text).toMatch(
      /a2a_translations_total\{agent="peer",caller_version="1.0",agent_version="0.3",outcome="refused"\} [1-9]/,
    );
  });
});

/** A scripted JSON-RPC agent: `answer` gets each POST's raw body and parsed request (the card GET is a 404). */
function jsonRpcAgent(
  answer: (raw: string, rpc: { id: number; method: string }, req: IncomingMessage, res: ServerResponse) => void,
) {
  return scriptedUpstream((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      if (req.method !== 'POST') return void res.writeHead(404).end();
      answer(raw, JSON.parse(raw) as { id: number; method: string }, req, res);
    });
  });
}

describe('what a 0.3 agent receives', () => {
  let gateway: RunningGateway;
  let agent: { url: string; close: () => Promise<void> };
  const received: { body: string; headers: IncomingMessage['headers'] }[] = [];
  beforeAll(async () => {
    agent = await jsonRpcAgent((raw, { id }, req, res) => {
      received.push({ body: raw, headers: req.headers });
      const message = { kind: 'message', messageId: 'a1', role: 'agent', parts: [{ kind: 'text', text: 'hi' }] };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id, result: message }));
    });
    gateway = await startTestGateway({ old: { url: agent.url, translate: { agentVersion: '0.3' } } });
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  it('gets a 1.0 SendMessage as message/send with blocking written out, and no A2A-Version', async () => {
    const message = { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hello', mediaType: 'text/plain' }] };
    const sent = await post(`${gateway.url}/agents/old/`, rpc('SendMessage', { message }), {
      'A2A-Version': '1.0',
      'A2A-Extensions': 'https://example.com/ext',
    });
    const got = received.at(-1)!;
    expect(JSON.parse(got.body)).toEqual({
      jsonrpc: '2.0',
      id: 7,
      method: 'message/send',
      params: {
        message: { kind: 'message', messageId: 'm-1', role: 'user', parts: [{ kind: 'text', text: 'hello' }] },
        configuration: { blocking: true },
      },
    });
    expect(got.headers['a2a-version']).toBeUndefined();
    expect(got.headers['x-a2a-extensions']).toBe('https://example.com/ext');
    expect(got.headers['content-length']).toBe(String(Buffer.byteLength(got.body)));
    expect(JSON.parse(sent.text)).toEqual({
      jsonrpc: '2.0',
      id: 7,
      result: { message: { messageId: 'a1', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] } },
    });
  });

  it('gets a call in its own version byte for byte', async () => {
    const body = `{"jsonrpc":"2.0","id":8, "method":"message/send","params":{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text","text":"x"}]}}}`;
    const sent = await post(`${gateway.url}/agents/old/`, body);
    expect(received.at(-1)!.body).toBe(body);
    expect(sent.text).toBe(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 8,
        result: { kind: 'message', messageId: 'a1', role: 'agent', parts: [{ kind: 'text', text: 'hi' }] },
      }),
    );
  });
});

describe('an answer the gateway cannot translate', () => {
  let gateway: RunningGateway;
  let agent: { url: string; close: () => Promise<void> };
  beforeAll(async () => {
    // A 1.0 agent that answers with what no 0.3 shape holds: an unknown state, a draft stream payload.
    agent = await jsonRpcAgent((_raw, { id, method }, _req, res) => {
      if (method === 'GetTask') {
        res.writeHead(200, { 'content-type': 'application/json' });
        const task = { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_DREAMING' } };
        return res.end(JSON.stringify({ jsonrpc: '2.0', id, result: task }));
      }
      if (method === 'CancelTask') {
        // Past the 16 MiB a translated answer may have (src/bindings/http/translate.ts).
        res.writeHead(200, { 'content-type': 'application/json' });
        const status = { state: 'TASK_STATE_CANCELED' };
        const task = { id: 't1', contextId: 'c1', status, metadata: { pad: 'x'.repeat(17 * 1024 * 1024) } };
        return res.end(JSON.stringify({ jsonrpc: '2.0', id, result: task }));
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const task = { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' } };
      res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id, result: { task } })}\n\n`);
      res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id, result: { messageUpdate: { delta: 'x' } } })}\n\n`);
      res.end(`data: ${JSON.stringify({ jsonrpc: '2.0', id, result: { task } })}\n\n`);
    });
    gateway = await startTestGateway({ draft: { url: agent.url, translate: { agentVersion: '1.0' } } });
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  it('answers a unary answer it cannot translate with a 502-class error in the caller protocol', async () => {
    const sent = await post(`${gateway.url}/agents/draft/`, rpc('tasks/get', { id: 't1' }, 3));
    const answer = JSON.parse(sent.text) as { id: number; error: { message: string; data?: unknown } };
    expect(answer.id).toBe(3);
    expect(answer.error.message).toMatch(/cannot be translated.*TASK_STATE_DREAMING/);
    expect(sent.text).not.toContain('"result"');
  });

  it('refuses a unary answer larger than it translates, never passing it on untranslated', async () => {
    const sent = await post(`${gateway.url}/agents/draft/`, rpc('tasks/cancel', { id: 't1' }, 5));
    expect(sent.text.length).toBeLessThan(4096);
    expect(sent.text).toMatch(/larger than 16777216 bytes and cannot be translated/);
    expect(sent.text).not.toContain('"result"');
  });

  it('ends a stream with an error event at the first event it cannot translate, the ones before translated', async () => {
    const params = {
      message: { kind: 'message', messageId: 'm', role: 'user', parts: [{ kind: 'text', text: 'go' }] },
    };
    const sent = await post(`${gateway.url}/agents/draft/`, rpc('message/stream', params, 4), {
      accept: 'text/event-stream',
    });
    const events = sent.text.split('\n\n').filter((e) => e.startsWith('data:') || e.includes('\ndata:'));
    expect(events).toHaveLength(2);
    expect(JSON.parse(events[0]!.slice('data: '.length))).toMatchObject({
      id: 4,
      result: { kind: 'task', status: { state: 'working' } },
    });
    expect(events[1]).toMatch(/"error".*cannot be translated/);
    expect(sent.text).not.toContain('"messageUpdate":');
  });
});
