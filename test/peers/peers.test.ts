// The SDK 1.3.0 test peer, driven directly by the SDK 1.3.0 client over both transports.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskState } from '@a2a-js/sdk';
import { startPeerV1 } from './peer-v1.js';
import type { Peer } from './peer-common.js';
import { asBase, clientV1, sendRequestV1, userMessageV1, type TransportName } from './clients.js';
import { collect, pollUntil, within, withDeadline } from './deadline.js';
import { asMessage, asTask, stateName, streamTaskId, texts, trace } from './inspect.js';

const STEP = 30;
const TRANSPORTS: TransportName[] = ['JSONRPC', 'HTTP+JSON'];

describe.each(TRANSPORTS)('SDK 1.3.0 peer over %s', (transport) => {
  let peer: Peer;
  beforeAll(async () => {
    peer = await startPeerV1({ stepMs: STEP, slowMs: 400, extendedCard: true });
  });
  afterAll(() => peer.close());
  const client = () => withDeadline(clientV1(asBase(peer.url), { transport }), 5000, 'card resolution');
  const send = async (text: string, opts: { taskId?: string; returnImmediately?: boolean } = {}) =>
    (await client()).sendMessage(sendRequestV1(userMessageV1(text, { taskId: opts.taskId }), opts), within(5000));

  it('picks the requested transport from the card', async () => {
    const c = await client();
    expect(c.transport.protocolName).toBe(transport);
    expect(c.protocolVersion).toBe('1.0');
  });

  it('answers a question with a direct message', async () => {
    const msg = asMessage(await send('what is 6x7?'));
    expect(texts(msg.parts)).toEqual(['You asked: what is 6x7? Answer: 42.']);
    expect(msg.contextId).not.toBe('');
  });

  it('runs a default task to COMPLETED with a 2-chunk artifact', async () => {
    const task = asTask(await send('process this'));
    expect(stateName(task.status?.state)).toBe('COMPLETED');
    expect(task.artifacts).toHaveLength(1);
    expect(task.artifacts[0]?.artifactId).toBe(`result-${task.id.slice(0, 8)}`);
    expect(texts(task.artifacts[0]?.parts)).toEqual(['chunk-1: processed "process this"; ', 'chunk-2: done.']);
  });

  it('parks "needs input" in INPUT_REQUIRED and completes on the follow-up', async () => {
    const first = asTask(await send('needs input'));
    expect(stateName(first.status?.state)).toBe('INPUT_REQUIRED');
    expect(texts(first.status?.message?.parts)).toEqual(['Please provide more details.']);
    const second = asTask(await send('here are the details', { taskId: first.id }));
    expect(second.id).toBe(first.id);
    expect(stateName(second.status?.state)).toBe('COMPLETED');
  });

  it('ends "fail" in FAILED and "reject" in REJECTED', async () => {
    const failed = asTask(await send('fail'));
    expect(stateName(failed.status?.state)).toBe('FAILED');
    expect(texts(failed.status?.message?.parts)[0]).toContain('requested failure');
    expect(stateName(asTask(await send('reject')).status?.state)).toBe('REJECTED');
  });

  it('returns immediately when asked and completes while GetTask polls', async () => {
    const task = asTask(await send('poll me', { returnImmediately: true }));
    expect(['SUBMITTED', 'WORKING']).toContain(stateName(task.status?.state));
    const c = await client();
    const done = await pollUntil(
      () => c.getTask({ tenant: '', id: task.id }, within(2000)),
      (t) => t.status?.state === TaskState.TASK_STATE_COMPLETED,
      5000,
      'task completion',
    );
    expect(done.artifacts[0]?.parts).toHaveLength(2);
  });

  it('streams submitted → working → 2 chunks → completed', async () => {
    const c = await client();
    const events = await collect(
      c.sendMessageStream(sendRequestV1(userMessageV1('stream this')), within(5000)),
      5000,
      'stream',
    );
    expect(trace(events)).toEqual([
      'task:SUBMITTED',
      'status:WORKING',
      'artifact',
      'artifact+append+last',
      'status:COMPLETED',
    ]);
  });

  it('streams a question as a single message event', async () => {
    const c = await client();
    const events = await collect(
      c.sendMessageStream(sendRequestV1(userMessageV1('streamed question?')), within(5000)),
      5000,
      'stream',
    );
    expect(trace(events)).toEqual(['message']);
  });

  it('drops events published after the terminal one (misbehave)', async () => {
    const c = await client();
    const events = await collect(
      c.sendMessageStream(sendRequestV1(userMessageV1('misbehave')), within(5000)),
      5000,
      'stream',
    );
    expect(trace(events)).toEqual(['task:SUBMITTED', 'status:COMPLETED']);
  });

  it('lets a subscriber follow a running task to the end', async () => {
    const task = asTask(await send('sleep:150 subscribe to me', { returnImmediately: true }));
    const c = await client();
    const events = await collect(c.resubscribeTask({ tenant: '', id: task.id }, within(5000)), 5000, 'subscription');
    expect(streamTaskId(events)).toBe(task.id);
    expect(trace(events).at(-1)).toBe('status:COMPLETED');
  });

  it('cancels a running task', async () => {
    const task = asTask(await send('sleep:5000 cancel me', { returnImmediately: true }));
    const c = await client();
    const canceled = await c.cancelTask({ tenant: '', id: task.id, metadata: undefined }, within(3000));
    expect(stateName(canceled.status?.state)).toBe('CANCELED');
    expect(texts(canceled.status?.message?.parts)).toEqual(['Canceled on request.']);
    const again = await c.getTask({ tenant: '', id: task.id }, within(2000));
    expect(stateName(again.status?.state)).toBe('CANCELED');
  });

  it('cancels a task parked in INPUT_REQUIRED', async () => {
    const task = asTask(await send('needs input'));
    const c = await client();
    const canceled = await c.cancelTask({ tenant: '', id: task.id, metadata: undefined }, within(3000));
    expect(stateName(canceled.status?.state)).toBe('CANCELED');
  });

  it('lists tasks', async () => {
    const task = asTask(await send('list me'));
    const c = await client();
    const list = await c.listTasks(
      {
        tenant: '',
        contextId: '',
        status: TaskState.TASK_STATE_UNSPECIFIED,
        pageToken: '',
        statusTimestampAfter: undefined,
      },
      within(2000),
    );
    expect(list.tasks.map((t) => t.id)).toContain(task.id);
  });

  it('takes about slowMs for a "slow" task', async () => {
    const started = Date.now();
    const task = asTask(await send('slow job'));
    expect(stateName(task.status?.state)).toBe('COMPLETED');
    expect(Date.now() - started).toBeGreaterThanOrEqual(380);
  });

  it('serves the extended card', async () => {
    const c = await client();
    const card = await c.getAgentCard(within(2000));
    expect(card.name).toBe('a2a-js peer (SDK 1.3.0) (extended)');
    expect(card.skills.map((s) => s.id)).toContain('extended-only');
  });

  it('records every request with its headers', async () => {
    const before = peer.requests.length;
    await send('what?');
    const seen = peer.requests.slice(before);
    expect(seen.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /.well-known/agent-card.json',
      transport === 'JSONRPC' ? 'POST /a2a/jsonrpc' : 'POST /a2a/rest/message:send',
    ]);
    expect(seen.every((r) => r.headers['a2a-version'] === '1.0')).toBe(true);
  });
});

describe('SDK 1.3.0 peer card and mounting', () => {
  it('serves a 1.0 card with absolute interface URLs', async () => {
    const peer = await startPeerV1();
    try {
      const res = await fetch(`${peer.url}/.well-known/agent-card.json`, {
        headers: { 'A2A-Version': '1.0' },
        ...within(2000),
      });
      const card = (await res.json()) as { supportedInterfaces: unknown[]; capabilities: Record<string, unknown> };
      expect(card.supportedInterfaces).toEqual([
        { url: `${peer.url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
        { url: `${peer.url}/a2a/rest`, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: '1.0' },
      ]);
      expect(card.capabilities).toMatchObject({ streaming: true, pushNotifications: true, extendedAgentCard: false });
      expect(res.headers.get('vary')).toBeNull();
    } finally {
      await peer.close();
    }
  });

  it('mounts the whole agent under a prefix', async () => {
    const peer = await startPeerV1({ prefix: '/team/reviewer', stepMs: STEP });
    try {
      expect(peer.url).toBe(`http://127.0.0.1:${peer.port}/team/reviewer`);
      for (const transport of TRANSPORTS) {
        const c = await withDeadline(clientV1(asBase(peer.url), { transport }), 5000, 'card');
        const task = asTask(await c.sendMessage(sendRequestV1(userMessageV1('prefixed')), within(5000)));
        expect(stateName(task.status?.state)).toBe('COMPLETED');
      }
      expect(peer.requests.map((r) => r.path)).toContain('/team/reviewer/a2a/rest/message:send');
    } finally {
      await peer.close();
    }
  });

  it('resolves the card one level up when the base has no trailing slash (SDK behaviour)', async () => {
    const peer = await startPeerV1({ prefix: '/team/reviewer' });
    try {
      await expect(withDeadline(clientV1(peer.url, { transport: 'JSONRPC' }), 5000, 'card')).rejects.toThrow(/404/);
      expect(peer.requests.map((r) => r.path)).toEqual(['/team/.well-known/agent-card.json']);
    } finally {
      await peer.close();
    }
  });

  it('advertises streaming:false and the client falls back to a single result', async () => {
    const peer = await startPeerV1({ streaming: false, stepMs: STEP });
    try {
      const c = await withDeadline(clientV1(asBase(peer.url), { transport: 'JSONRPC' }), 5000, 'card');
      const events = await collect(
        c.sendMessageStream(sendRequestV1(userMessageV1('no stream')), within(5000)),
        5000,
        'stream',
      );
      expect(trace(events)).toEqual(['task:COMPLETED']);
    } finally {
      await peer.close();
    }
  });

  it('close() returns promptly even with a stream in flight', async () => {
    const peer = await startPeerV1({ stepMs: 10_000 });
    const c = await withDeadline(clientV1(asBase(peer.url), { transport: 'JSONRPC' }), 5000, 'card');
    const stream = c.sendMessageStream(sendRequestV1(userMessageV1('long one')), within(5000));
    const first = await withDeadline(stream.next(), 3000, 'first event');
    expect(first.done).toBe(false);
    const started = Date.now();
    await withDeadline(peer.close(), 3000, 'close');
    expect(Date.now() - started).toBeLessThan(1000);
    await stream.return(undefined).catch(() => undefined);
  });
});
