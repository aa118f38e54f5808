// The native SDK 0.3.14 test peer, driven by the SDK 0.3.14 client over both transports,
// plus the 1.3.0 client with its legacy-compat switch against the same peer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from 'a2a-sdk-v03';
import { startPeerV03 } from './peer-v03.js';
import type { Peer } from './peer-common.js';
import {
  asBase,
  clientV03,
  clientV1,
  sendParamsV03,
  sendRequestV1,
  userMessageV03,
  userMessageV1,
  type TransportName,
} from './clients.js';
import { collect, pollUntil, within, withDeadline } from './deadline.js';
import { artifactTrace, asTask, stateName, texts, trace } from './inspect.js';

const STEP = 30;
const TRANSPORTS: TransportName[] = ['JSONRPC', 'HTTP+JSON'];

/**
 * Second chunk as the client reports it. The peer sends append:true,lastChunk:true on both
 * transports, but the 0.3 REST decoders (0.3.14 RestTransport, 1.3.0 LegacyRestTransport:
 * FromProto.taskArtifactUpdateEvent) drop `append` and keep only `lastChunk`.
 */
const lastChunk = (transport: TransportName): string =>
  transport === 'HTTP+JSON' ? 'artifact+last' : 'artifact+append+last';

type Event03 = Message | Task | TaskStatusUpdateEvent | TaskArtifactUpdateEvent;

/** "task:submitted", "status:working", "status:completed!" (! = final), "artifact+append+last". */
function trace03(events: Event03[]): string[] {
  return events.map((ev) => {
    switch (ev.kind) {
      case 'task':
        return `task:${ev.status.state}`;
      case 'message':
        return 'message';
      case 'status-update':
        return `status:${ev.status.state}${ev.final ? '!' : ''}`;
      default:
        return artifactTrace(ev);
    }
  });
}

function task03(result: Message | Task): Task {
  if (result.kind !== 'task') throw new Error('expected a task');
  return result;
}

describe.each(TRANSPORTS)('SDK 0.3.14 peer over %s', (transport) => {
  let peer: Peer;
  beforeAll(async () => {
    peer = await startPeerV03({ stepMs: STEP, extendedCard: true });
  });
  afterAll(() => peer.close());
  const client = () => withDeadline(clientV03(asBase(peer.url), { transport }), 5000, 'card resolution');
  const send = async (text: string, opts: { taskId?: string; blocking?: boolean } = {}) =>
    (await client()).sendMessage(sendParamsV03(userMessageV03(text, { taskId: opts.taskId }), opts), within(5000));

  it('answers a question with a direct message', async () => {
    const msg = await send('what is 6x7?');
    expect(msg.kind).toBe('message');
    expect(msg.kind === 'message' && msg.parts).toEqual([
      { kind: 'text', text: 'You asked: what is 6x7? Answer: 42.' },
    ]);
  });

  it('runs a default task to completed with a 2-chunk artifact', async () => {
    const task = task03(await send('process this'));
    expect(task.status.state).toBe('completed');
    expect(task.artifacts?.[0]?.parts).toEqual([
      { kind: 'text', text: 'chunk-1: processed "process this"; ' },
      { kind: 'text', text: 'chunk-2: done.' },
    ]);
  });

  it('parks "needs input" and completes on the follow-up', async () => {
    const first = task03(await send('needs input'));
    expect(first.status.state).toBe('input-required');
    const second = task03(await send('more', { taskId: first.id }));
    expect(second.id).toBe(first.id);
    expect(second.status.state).toBe('completed');
  });

  it('ends "fail" in failed and "reject" in rejected', async () => {
    expect(task03(await send('fail')).status.state).toBe('failed');
    expect(task03(await send('reject')).status.state).toBe('rejected');
  });

  it('returns at once with blocking:false and completes while tasks/get polls', async () => {
    const task = task03(await send('poll me', { blocking: false }));
    expect(['submitted', 'working']).toContain(task.status.state);
    const c = await client();
    const done = await pollUntil(
      () => c.getTask({ id: task.id }, within(2000)),
      (t) => t.status.state === 'completed',
      5000,
      'completion',
    );
    expect(done.artifacts?.[0]?.parts).toHaveLength(2);
  });

  it('streams with final:true on the last event', async () => {
    const c = await client();
    const events = await collect(
      c.sendMessageStream(sendParamsV03(userMessageV03('stream this')), within(5000)),
      5000,
      'stream',
    );
    expect(trace03(events)).toEqual([
      'task:submitted',
      'status:working',
      'artifact',
      lastChunk(transport),
      'status:completed!',
    ]);
  });

  it('forwards events after a non-final terminal status (misbehave)', async () => {
    const c = await client();
    const events = await collect(
      c.sendMessageStream(sendParamsV03(userMessageV03('misbehave')), within(5000)),
      5000,
      'stream',
    );
    // The late artifact is sent with append:false, lastChunk:true.
    expect(trace03(events)).toEqual(['task:submitted', 'status:completed', 'artifact+last', 'status:working!']);
  });

  it('resubscribes to a running task', async () => {
    const task = task03(await send('sleep:150 subscribe to me', { blocking: false }));
    const c = await client();
    const events = await collect(c.resubscribeTask({ id: task.id }, within(5000)), 5000, 'resubscribe');
    expect(trace03(events)[0]).toMatch(/^task:/);
    expect(trace03(events).at(-1)).toBe('status:completed!');
  });

  it('cancels a running task', async () => {
    const task = task03(await send('sleep:5000 cancel me', { blocking: false }));
    const c = await client();
    const canceled = await c.cancelTask({ id: task.id }, within(3000));
    expect(canceled.status.state).toBe('canceled');
  });

  it('serves the extended card', async () => {
    const c = await client();
    expect((await c.getAgentCard(within(2000))).name).toBe('a2a-js peer (SDK 0.3.14) (extended)');
  });

  it('sends no A2A-Version header', async () => {
    const before = peer.requests.length;
    await send('hi?');
    const seen = peer.requests.slice(before);
    expect(seen.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /.well-known/agent-card.json',
      transport === 'JSONRPC' ? 'POST /a2a/jsonrpc' : 'POST /a2a/rest/v1/message:send',
    ]);
    expect(seen.every((r) => r.headers['a2a-version'] === undefined)).toBe(true);
  });

  it('is reachable from the 1.3.0 client with legacyCompat (A2A-Version: 0.3)', async () => {
    const c = await withDeadline(clientV1(asBase(peer.url), { transport, legacyCompat: true }), 5000, 'card');
    expect(c.protocolVersion).toBe('0.3');
    const before = peer.requests.length;
    const task = asTask(await c.sendMessage(sendRequestV1(userMessageV1('via compat')), within(5000)));
    expect(stateName(task.status?.state)).toBe('COMPLETED');
    expect(texts(task.artifacts[0]?.parts)).toEqual(['chunk-1: processed "via compat"; ', 'chunk-2: done.']);
    expect(peer.requests.slice(before).map((r) => r.headers['a2a-version'])).toEqual(['0.3']);
    const events = await collect(
      c.sendMessageStream(sendRequestV1(userMessageV1('stream via compat')), within(5000)),
      5000,
      'stream',
    );
    expect(trace(events)).toEqual([
      'task:SUBMITTED',
      'status:WORKING',
      'artifact',
      lastChunk(transport),
      'status:COMPLETED',
    ]);
  });
});

describe('SDK 0.3.14 peer card and mounting', () => {
  it('serves a 0.3 card with url, preferredTransport and additionalInterfaces', async () => {
    const peer = await startPeerV03();
    try {
      const res = await fetch(`${peer.url}/.well-known/agent-card.json`, within(2000));
      expect(await res.json()).toMatchObject({
        protocolVersion: '0.3.0',
        url: `${peer.url}/a2a/jsonrpc`,
        preferredTransport: 'JSONRPC',
        additionalInterfaces: [
          { url: `${peer.url}/a2a/jsonrpc`, transport: 'JSONRPC' },
          { url: `${peer.url}/a2a/rest`, transport: 'HTTP+JSON' },
        ],
        capabilities: { streaming: true, pushNotifications: true },
      });
    } finally {
      await peer.close();
    }
  });

  it('mounts the whole agent under a prefix', async () => {
    const peer = await startPeerV03({ prefix: '/team/tester', stepMs: STEP });
    try {
      for (const transport of TRANSPORTS) {
        const c = await withDeadline(clientV03(asBase(peer.url), { transport }), 5000, 'card');
        const task = task03(await c.sendMessage(sendParamsV03(userMessageV03('prefixed')), within(5000)));
        expect(task.status.state).toBe('completed');
      }
      expect(peer.requests.map((r) => r.path)).toContain('/team/tester/a2a/rest/v1/message:send');
    } finally {
      await peer.close();
    }
  });

  it('puts append and lastChunk on the REST wire (the SDK clients drop append, not the peer)', async () => {
    const peer = await startPeerV03({ stepMs: STEP });
    try {
      const res = await fetch(`${peer.url}/a2a/rest/v1/message:stream`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({
          message: { messageId: 'wire-1', role: 'ROLE_USER', content: [{ text: 'stream this' }] },
        }),
        ...within(5000),
      });
      const body = await withDeadline(res.text(), 5000, 'SSE body');
      expect(body).toContain('"parts":[{"text":"chunk-2: done."}]},"append":true,"lastChunk":true}');
      expect(body).toContain('"state":"TASK_STATE_COMPLETED"');
    } finally {
      await peer.close();
    }
  });
});
