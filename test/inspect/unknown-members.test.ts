/**
 * Members A2A 1.0 does not know pass through untouched (§5.7 "receivers SHOULD ignore unknown
 * fields"; principle 5): the draft 1.1 members, in their shape on a2aproject/A2A branch `dev-1.1`
 * (commit 28491879, PR #1810) — `generation` (int64, ProtoJSON string) on Task,
 * TaskStatusUpdateEvent and TaskArtifactUpdateEvent — and two not specified anywhere yet, so in a
 * shape of our own: `timeline` on Task (ADR-002 on `dev-1.1` names it, gives no fields) and a
 * `messageUpdate` StreamResponse member (proposed in A2A#1386 and the #1995 epic, in no proto).
 * A real agent over a real socket (a scripted HTTP server: the SDK agent drops unknown fields)
 * answers them in unary and SSE answers on both JSON bindings; the client gets its bytes exactly,
 * the decoders read the known members around them without a decoder failure, and the task
 * tracker follows the task to its final state past the unknown `messageUpdate` event.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptedUpstream } from '../support/scripted-upstream.js';
import { within } from '../peers/deadline.js';
import { waitReady } from '../state/support/replicas.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import type { ExchangeRecord } from '../../src/exchange/record.js';

const TIMELINE = [
  { generation: '1', role: 'ROLE_USER', message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'go' }] } },
  { generation: '2', role: 'ROLE_AGENT', progress: { text: 'working on it' } },
];

function task(id: string, state: string, generation: string): Record<string, unknown> {
  const status = { state, timestamp: '2026-12-01T00:00:00.000Z' };
  return { id, contextId: 'ctx-1', status, generation, timeline: TIMELINE, futureField: { nested: [1, 'two'] } };
}

/** The stream's payloads: a task, then the unknown messageUpdate between known events, each known one with `generation`. */
function streamPayloads(id: string): Record<string, unknown>[] {
  const common = { taskId: id, contextId: 'ctx-1' };
  return [
    { task: task(id, 'TASK_STATE_WORKING', '1') },
    { messageUpdate: { ...common, messageId: 'm2', role: 'ROLE_AGENT', parts: [{ text: 'Hel' }], append: true } },
    {
      artifactUpdate: {
        ...common,
        artifact: { artifactId: 'a1', parts: [{ text: 'out' }] },
        lastChunk: true,
        generation: '2',
      },
    },
    { statusUpdate: { ...common, status: { state: 'TASK_STATE_COMPLETED' }, generation: '3' } },
  ];
}

const CARD = (base: string) => ({
  name: 'draft-1.1 agent',
  description: 'answers with members A2A 1.0 does not know',
  version: '1.0.0',
  supportedInterfaces: [
    { url: `${base}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url: `${base}/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
  ],
  capabilities: { streaming: true },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
});

/** What the agent wrote for each request, byte for byte, by path and method. */
const sent = new Map<string, string>();

function answer(res: ServerResponse, key: string, type: string, body: string): void {
  sent.set(key, body);
  res.writeHead(200, { 'content-type': type });
  res.end(body);
}

async function readBody(req: IncomingMessage): Promise<Record<string, any>> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text ? JSON.parse(text) : {};
}

let base = '';
async function agent(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = req.url ?? '';
  const body = await readBody(req);
  const rpc = (result: unknown) => JSON.stringify({ jsonrpc: '2.0', id: body.id, result });
  const sse = (payloads: unknown[], wrap: (p: unknown) => string) =>
    payloads.map((p) => `data: ${wrap(p)}\n\n`).join('');
  if (path === '/.well-known/agent-card.json')
    return answer(res, 'card', 'application/json', JSON.stringify(CARD(base)));
  if (path === '/rpc' && body.method === 'GetTask')
    return answer(res, 'rpc GetTask', 'application/json', rpc(task(body.params.id, 'TASK_STATE_COMPLETED', '3')));
  if (path === '/rpc' && body.method === 'SendStreamingMessage')
    return answer(res, 'rpc stream', 'text/event-stream', sse(streamPayloads('t-rpc'), rpc));
  if (path.startsWith('/rest/tasks/'))
    return answer(
      res,
      'rest GetTask',
      'application/a2a+json',
      JSON.stringify(task('t-rest-get', 'TASK_STATE_COMPLETED', '3')),
    );
  if (path === '/rest/message:send')
    return answer(
      res,
      'rest send',
      'application/a2a+json',
      JSON.stringify({ task: task('t-rest-send', 'TASK_STATE_COMPLETED', '3') }),
    );
  if (path === '/rest/message:stream')
    return answer(
      res,
      'rest stream',
      'text/event-stream',
      sse(streamPayloads('t-rest'), (p) => JSON.stringify(p)),
    );
  res.writeHead(404).end();
}

let upstream: { url: string; close: () => Promise<void> };
let gw: RunningGateway;

beforeAll(async () => {
  upstream = await scriptedUpstream((req, res) => void agent(req, res));
  base = upstream.url;
  gw = await startTestGateway({ draft: { url: upstream.url } });
  await waitReady(gw);
});
afterAll(async () => {
  await gw?.close();
  await upstream?.close();
});

async function call(path: string, init: { method: string; body?: unknown }): Promise<string> {
  const res = await fetch(`${gw.url}/agents/draft${path}`, {
    method: init.method,
    headers: { 'a2a-version': '1.0', 'content-type': 'application/json' },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    ...within(5000),
  });
  expect(res.status).toBe(200);
  return res.text();
}

async function lastRecord(): Promise<ExchangeRecord> {
  const res = await fetch(`${gw.adminUrl}/exchanges?agent=draft&limit=1`, within(3000));
  return ((await res.json()) as { exchanges: ExchangeRecord[] }).exchanges[0]!;
}

const send = (method: string) => ({
  jsonrpc: '2.0',
  id: 7,
  method,
  params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'go' }] } },
});

describe('unary answers with generation, timeline and an unknown field', () => {
  it.each([
    [
      'JSON-RPC GetTask',
      'rpc GetTask',
      '/rpc',
      { method: 'POST', body: { jsonrpc: '2.0', id: 3, method: 'GetTask', params: { id: 't-9' } } },
    ],
    ['REST GetTask', 'rest GetTask', '/rest/tasks/t-rest-get', { method: 'GET' }],
    ['REST SendMessage', 'rest send', '/rest/message:send', { method: 'POST', body: send('').params }],
  ] as const)('%s: the bytes pass untouched; the Task is decoded', async (_, key, path, init) => {
    const got = await call(path, init);
    expect(got).toBe(sent.get(key));
    const record = await lastRecord();
    expect([record.a2a?.kind, record.a2a?.state, record.findings]).toEqual(['task', 'TASK_STATE_COMPLETED', []]);
  });
});

describe('SSE streams with generation on every event and an unknown messageUpdate event', () => {
  it.each([
    ['JSON-RPC', 'rpc stream', '/rpc', send('SendStreamingMessage'), 't-rpc'],
    ['REST', 'rest stream', '/rest/message:stream', send('').params, 't-rest'],
  ] as const)(
    '%s: the events pass untouched; the known ones are decoded, the task followed to its end',
    async (_, key, path, body, taskId) => {
      const got = await call(path, { method: 'POST', body });
      expect(got).toBe(sent.get(key));
      const record = await lastRecord();
      expect(record.findings).toEqual([]);
      expect(record.a2a).toMatchObject({ kind: 'task', taskId, state: 'TASK_STATE_COMPLETED' });
      expect(record.a2a?.stream?.events).toMatchObject({ task: 1, statusUpdate: 1, artifactUpdate: 1, message: 0 });
      const story = await fetch(`${gw.adminUrl}/tasks/draft/${taskId}`, within(3000));
      expect(story.status).toBe(200);
      const states = ((await story.json()) as { states: { state: string }[] }).states.map((v) => v.state);
      expect(states).toEqual(['TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
    },
  );
});
