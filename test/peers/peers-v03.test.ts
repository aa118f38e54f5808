// The native SDK 0.3.14 test peer, driven by the SDK 0.3.14 client over both transports,
// plus the 1.3.0 client with its legacy-compat switch against the same peer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
import { within, withDeadline } from './deadline.js';
import { asTask, stateName, texts, trace } from './inspect.js';
import {
  STREAMED_TASK_V1,
  lastChunk,
  sdkScenariosV03,
  senderV03,
  streamV03,
  streamV1,
  task03,
  trace03,
} from './scenarios.js';

const STEP = 30;
const TRANSPORTS: TransportName[] = ['JSONRPC', 'HTTP+JSON'];

describe.each(TRANSPORTS)('SDK 0.3.14 peer over %s', (transport) => {
  let peer: Peer;
  beforeAll(async () => {
    peer = await startPeerV03({ stepMs: STEP, extendedCard: true });
  });
  afterAll(() => peer.close());
  const client = () => withDeadline(clientV03(asBase(peer.url), { transport }), 5000, 'card resolution');
  const send = senderV03(client);

  sdkScenariosV03(client, { transport, extendedCard: true });

  it('forwards events after a non-final terminal status (misbehave)', async () => {
    const events = await streamV03(await client(), 'misbehave');
    // The late artifact is sent with append:false, lastChunk:true.
    expect(trace03(events)).toEqual(['task:submitted', 'status:completed', 'artifact+last', 'status:working!']);
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
    expect(trace(await streamV1(c, 'stream via compat'))).toEqual(STREAMED_TASK_V1(lastChunk(transport)));
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
