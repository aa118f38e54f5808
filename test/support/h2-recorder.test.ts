// The recording proxy is transparent to a real SDK gRPC client and peer, and what it writes
// reads back: a unary call, a trailers-only error, a stream, and a stream the client abandons.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import { startPeerV1 } from '../peers/peer-v1.js';
import type { Peer } from '../peers/peer-common.js';
import { asBase, clientV1, sendRequestV1, userMessageV1 } from '../peers/clients.js';
import { pollUntil, within, withDeadline } from '../peers/deadline.js';
import { asMessage, texts, trace } from '../peers/inspect.js';
import { STREAMED_TASK_V1, streamV1 } from '../peers/scenarios.js';
import { formatGrpcCapture, parseGrpcCapture } from './grpc-capture-format.js';
import { grpcFrames } from './grpc-frames.js';
import { startH2Recorder, type H2Exchange, type H2Recorder } from './h2-recorder.js';

describe('h2 recorder between the SDK gRPC client and peer', () => {
  let peer: Peer;
  let rec: H2Recorder;
  beforeAll(async () => {
    peer = await startPeerV1({ grpc: true, stepMs: 30 });
    rec = await startH2Recorder(peer.grpcUrl!);
  });
  afterAll(async () => {
    await rec?.close();
    await peer?.close();
  });
  const client = () =>
    withDeadline(clientV1(asBase(peer.url), { transport: 'GRPC', grpcUrl: rec.url }), 5000, 'card resolution');
  /** The exchange number `n` (0-based), once the recorder has closed it. */
  const exchange = (n: number): Promise<H2Exchange> =>
    pollUntil(
      async () => rec.exchanges[n],
      (e) => e !== undefined,
      2000,
      'recorded exchange',
    ).then((e) => e!);

  it('passes a unary call through and records request and response', async () => {
    const n = rec.exchanges.length;
    const msg = asMessage(await (await client()).sendMessage(sendRequestV1(userMessageV1('hi?')), within(3000)));
    expect(texts(msg.parts)).toEqual(['You asked: hi? Answer: 42.']);
    const ex = await exchange(n);
    expect(ex.request.headers[0]?.[0]).toMatch(/^:/);
    expect(ex.request.headers).toContainEqual([':path', '/lf.a2a.v1.A2AService/SendMessage']);
    expect(grpcFrames(ex.response.chunks.map((c) => c.bytes))).toHaveLength(1);
    expect(ex.response.trailers).toContainEqual(['grpc-status', '0']);
    expect(peer.requests.at(-1)?.path).toBe('/lf.a2a.v1.A2AService/SendMessage');
  });

  it('keeps a trailers-only error trailers-only, so the client still sees its details', async () => {
    const n = rec.exchanges.length;
    const c = await client();
    await expect(c.getTask({ tenant: '', id: 'nope' }, within(3000))).rejects.toBeInstanceOf(TaskNotFoundError);
    const ex = await exchange(n);
    expect([ex.response.trailersOnly, ex.response.chunks]).toEqual([true, []]);
    expect(ex.response.trailers).toContainEqual(['grpc-status', '5']);
  });

  it('relays a stream event by event and the capture text round-trips', async () => {
    const n = rec.exchanges.length;
    expect(trace(await streamV1(await client(), 'stream this'))).toEqual(STREAMED_TASK_V1());
    const ex = await exchange(n);
    expect(grpcFrames(ex.response.chunks.map((c) => c.bytes))).toHaveLength(5);
    const text = formatGrpcCapture('stream', ex);
    expect(formatGrpcCapture('stream', parseGrpcCapture(text))).toBe(text);
  });

  it('notes a stream the client cancels as a reset, and passes the cancel on', async () => {
    const n = rec.exchanges.length;
    const stream = (await client()).sendMessageStream(sendRequestV1(userMessageV1('sleep:2000 long')), within(5000));
    await withDeadline(stream.next(), 3000, 'first event');
    await withDeadline(stream.return(undefined), 3000, 'cancel');
    const ex = await exchange(n);
    expect(ex.reset?.code).toBe(8); // NGHTTP2_CANCEL
    expect(ex.response.trailers).toEqual([]);
  });
});
