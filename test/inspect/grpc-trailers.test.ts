/**
 * The inspector hands the response trailers (Exchange.responseTrailers) to the response decoder:
 * a gRPC answer's status lives there. Until the gRPC forwarder exists, a test observer sets them
 * the way it will, before the exchange finishes; the bytes go through the HTTP/1.1 listener.
 */
import { encodeGrpcStatusDetails } from '@a2a-js/sdk/errors/grpc';
import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { encodeGrpcFrame } from '../../src/codec/grpc-frames.js';
import type { Exchange, ResponseHeaders } from '../../src/exchange/exchange.js';
import type { ExchangeRecord } from '../../src/exchange/record.js';
import { startTestGateway } from '../support/gateway.js';
import { scriptedUpstream } from '../support/scripted-upstream.js';
import { requestBytes, responseBytes, task1, V1 } from '../a2a/grpc/sdk-wire.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function exchange(body: Uint8Array, trailers: ResponseHeaders): Promise<ExchangeRecord> {
  const upstream = await scriptedUpstream(async (req, res) => {
    for await (const _ of req);
    res.writeHead(200, { 'content-type': 'application/grpc' });
    res.end(Buffer.from(body));
  });
  cleanups.push(upstream.close);
  const records: ExchangeRecord[] = [];
  const gateway = await startTestGateway({ a: { url: upstream.url } }, {}, [
    { onResponseStart: (ex: Exchange) => void (ex.responseTrailers = trailers) },
    { onFinish: (ex: Exchange) => void records.push(ex.record) },
  ]);
  cleanups.push(() => gateway.close());
  const res = await request(`${gateway.url}/agents/a/lf.a2a.v1.A2AService/GetTask`, {
    method: 'POST',
    headers: { 'content-type': 'application/grpc', 'a2a-version': '1.0', te: 'trailers' },
    body: Buffer.from(encodeGrpcFrame(requestBytes(V1.getTask!, { id: 'task-1' }))),
    headersTimeout: 5000,
    bodyTimeout: 5000,
  });
  await res.body.arrayBuffer();
  const deadline = Date.now() + 5000;
  while (records.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  return records[0]!;
}

describe('inspection of gRPC answers', () => {
  it('an OK status with a Task: the task and its state', async () => {
    const record = await exchange(encodeGrpcFrame(responseBytes(V1.getTask!, task1('task-1', 3))), {
      'grpc-status': '0',
    });
    expect(record.a2a).toMatchObject({
      binding: 'grpc',
      operation: 'GetTask',
      kind: 'task',
      taskId: 'task-1',
      state: 'TASK_STATE_COMPLETED',
    });
  });

  it('an error status in the trailers: kind error with the gRPC code and the ErrorInfo reason', async () => {
    const details = Buffer.from(encodeGrpcStatusDetails(5, 'Task not found', 'TASK_NOT_FOUND')).toString('base64');
    const record = await exchange(new Uint8Array(0), { 'grpc-status': '5', 'grpc-status-details-bin': details });
    expect(record.a2a).toMatchObject({
      kind: 'error',
      error: { reason: 'TASK_NOT_FOUND', message: 'Task not found', grpcStatus: 5 },
    });
  });
});
