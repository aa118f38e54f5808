// gRPC connections over time (issue #16, principle 19): idle connections closed after
// `limits.grpc.idleTimeout`, PINGs every `limits.grpc.ping` on a connection with a quiet open
// call, a graceful shutdown that lets an open stream finish while new calls go elsewhere, and the
// SDK 1.3.0 gRPC client's own deadline.
import type { ClientHttp2Session } from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPeerV1 } from '../peers/peer-v1.js';
import type { Peer } from '../peers/peer-common.js';
import { clientV1, sendRequestV1, userMessageV1 } from '../peers/clients.js';
import { withDeadline } from '../peers/deadline.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import { GrpcFrameReader } from '../../src/codec/grpc-frames.js';
import { eventually, frame, grpcHeaders, h2, rawCall, sendMessageRequest, SERVICE } from './support/raw-grpc.js';
import { startFakeAgent, type FakeAgent } from './support/fake-agent.js';

let peer: Peer;
let quiet: FakeAgent;

beforeAll(async () => {
  [peer, quiet] = await Promise.all([startPeerV1({ stepMs: 20, grpc: true }), startFakeAgent()]);
});
afterAll(async () => {
  await Promise.all([peer?.close(), quiet?.close()]);
});

function gateway(limits: Record<string, unknown>): Promise<RunningGateway> {
  return startTestGateway(
    {
      reviewer: { url: peer.url, grpc: { listen: { port: 0 } } },
      quiet: { url: peer.url, grpc: { url: quiet.url, listen: { port: 0 } } },
    },
    { limits: { grpc: limits } },
  );
}

const closed = (session: ClientHttp2Session): Promise<string> =>
  new Promise((resolve) => {
    if (session.closed || session.destroyed) return resolve('closed');
    session.once('goaway', () => resolve('goaway'));
    session.once('close', () => resolve('closed'));
  });

describe('gRPC connections over time', () => {
  it('an idle connection is closed after limits.grpc.idleTimeout (GOAWAY)', async () => {
    const gw = await gateway({ idleTimeout: '200ms' });
    try {
      const session = await h2(gw.grpcPorts.agents.get('reviewer')!);
      session.on('error', () => {});
      const reply = await rawCall(session, `${SERVICE}SendMessage`, { body: sendMessageRequest('what is 6x7?') });
      expect(reply.status?.code).toBe(0);
      await withDeadline(closed(session), 3000, 'the idle connection closing');
      session.destroy();
    } finally {
      await gw.close();
    }
  });

  it('a connection with a quiet open call receives PINGs every limits.grpc.ping, and is not closed as idle', async () => {
    const gw = await gateway({ ping: '50ms', idleTimeout: '150ms' });
    const session = await h2(gw.grpcPorts.agents.get('quiet')!);
    try {
      let pings = 0;
      session.on('ping', () => pings++);
      let gone = false;
      session.once('goaway', () => (gone = true));
      session.once('close', () => (gone = true));
      const stream = session.request(grpcHeaders(`${SERVICE}SendStreamingMessage`));
      stream.on('error', () => {});
      stream.end(frame(sendMessageRequest('stream and hold')));
      await eventually(() => pings >= 5, 3000, 'five PINGs');
      expect(gone).toBe(false);
      stream.close(8);
    } finally {
      session.destroy();
      await gw.close();
    }
  });

  it('graceful shutdown: an open stream runs to its end; new calls are refused (GOAWAY / UNAVAILABLE)', async () => {
    const gw = await gateway({});
    const port = gw.grpcPorts.agents.get('reviewer')!;
    const session = await h2(port);
    session.on('error', () => {});
    try {
      const chunks: Buffer[] = [];
      const stream = session.request(grpcHeaders(`${SERVICE}SendStreamingMessage`));
      stream.on('error', () => {});
      let trailers: Record<string, unknown> | undefined;
      stream.on('trailers', (t) => (trailers = t));
      stream.on('data', (c: Buffer) => chunks.push(c));
      const ended = new Promise<void>((resolve) => stream.on('close', () => resolve()));
      stream.end(frame(sendMessageRequest('sleep:300 work through the shutdown')));
      await eventually(() => chunks.length > 0, 3000, 'the first event');

      const closing = gw.close();
      const goaway = await withDeadline(closed(session), 3000, 'GOAWAY');
      expect(goaway).toBe('goaway');
      // A new call on the old connection is not sent; a new connection is refused.
      expect(() => session.request({ ':method': 'POST', ':path': `${SERVICE}GetTask` })).toThrow();
      const fresh = await h2(port, 1000).then(
        async (s) => {
          const reply = await rawCall(s, `${SERVICE}GetTask`, { body: sendMessageRequest('x'), ms: 1000 }).catch(
            () => undefined,
          );
          s.destroy();
          return reply?.status?.code === 14 ? 'unavailable' : reply === undefined ? 'refused' : 'served';
        },
        () => 'refused',
      );
      expect(fresh).not.toBe('served');

      await withDeadline(ended, 5000, 'the open stream ending');
      expect(trailers?.['grpc-status']).toBe('0');
      const messages: Uint8Array[] = [];
      const reader = new GrpcFrameReader(1 << 20);
      for (const c of chunks) reader.push(c, (m) => messages.push(m.slice()));
      expect(messages.length).toBeGreaterThanOrEqual(3);
      await withDeadline(closing, 5000, 'the gateway closing');
    } finally {
      session.destroy();
      await gw.close();
    }
  });

  it('a call refused on its head is answered at once, not after limits.bodyIdle (default 30 s)', async () => {
    const gw = await gateway({});
    const session = await h2(gw.grpcPorts.agents.get('reviewer')!);
    try {
      const reply = await rawCall(session, `${SERVICE}GetTask`, {
        headers: { 'content-type': 'text/plain' },
        onStream: (stream) => stream.write('not a gRPC message, and no end'),
        ms: 3000,
      });
      expect(reply.status).toMatchObject({ code: 3, reason: 'REQUEST_INVALID' });
    } finally {
      session.destroy();
      await gw.close();
    }
  });

  it("the SDK 1.3.0 gRPC client's deadline: DEADLINE_EXCEEDED, and the call is cancelled at the gateway", async () => {
    const gw = await gateway({});
    try {
      const card = `http://127.0.0.1:${new URL(gw.url).port}/agents/reviewer/`;
      const client = await withDeadline(
        clientV1(card, { transport: 'GRPC', grpcCallOptions: { deadline: Date.now() + 1500 } }),
        3000,
        'card',
      );
      const err = await withDeadline(
        client.sendMessage(sendRequestV1(userMessageV1('sleep:5000 slow work'))).then(
          () => undefined,
          (e: unknown) => e,
        ),
        4000,
        'the call failing',
      );
      expect(String((err as Error | undefined)?.message)).toMatch(/deadline/i);
    } finally {
      await gw.close();
    }
  });
});
