/**
 * The gRPC decoders against every recorded gRPC exchange (test/fixtures/captures/*.grpc, real SDK
 * 1.3.0 client and server): the facts written down here by hand, then the very same facts
 * whatever the chunking — each side split at every byte offset, and random chunkings — as the
 * JSON decoders are tested (test/a2a/captures.test.ts).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createRequestDecoder, type RequestFacts } from '../../../src/a2a/request.js';
import { createResponseDecoder, type ResponseFacts } from '../../../src/a2a/response.js';
import { headerValue, listGrpcCaptures, loadGrpcCapture, type GrpcCapture } from '../../support/grpc-captures.js';
import { splitAt } from '../../support/chunks.js';

const MAX_BYTES = 256 * 1024;

interface Want {
  op: string;
  version: '1.0' | '0.3';
  tag: string;
  state?: string;
  /** gRPC status of an error answer. */
  grpcStatus?: number;
  events?: number;
}

/** What each capture is, by hand (test/fixtures/captures/README.md lists how they were made). */
const EXPECTED: Record<string, Want> = {
  'v1--grpc-cancel-completed': { op: 'CancelTask', version: '1.0', tag: 'error', grpcStatus: 9 },
  'v1--grpc-cancel': { op: 'CancelTask', version: '1.0', tag: 'task', state: 'TASK_STATE_CANCELED' },
  'v1--grpc-extended-card': { op: 'GetExtendedAgentCard', version: '1.0', tag: 'other' },
  'v1--grpc-get-task': { op: 'GetTask', version: '1.0', tag: 'task', state: 'TASK_STATE_COMPLETED' },
  'v1--grpc-get-unknown-task': { op: 'GetTask', version: '1.0', tag: 'error', grpcStatus: 5 },
  'v1--grpc-list-tasks': { op: 'ListTasks', version: '1.0', tag: 'other' },
  'v1--grpc-push-config-create': { op: 'CreateTaskPushNotificationConfig', version: '1.0', tag: 'other' },
  'v1--grpc-push-config-delete': { op: 'DeleteTaskPushNotificationConfig', version: '1.0', tag: 'other' },
  'v1--grpc-push-config-get': { op: 'GetTaskPushNotificationConfig', version: '1.0', tag: 'other' },
  'v1--grpc-push-config-list': { op: 'ListTaskPushNotificationConfigs', version: '1.0', tag: 'other' },
  'v1--grpc-send-blocking': { op: 'SendMessage', version: '1.0', tag: 'task', state: 'TASK_STATE_COMPLETED' },
  'v1--grpc-send-follow-up': { op: 'SendMessage', version: '1.0', tag: 'task', state: 'TASK_STATE_COMPLETED' },
  'v1--grpc-send-needs-input': { op: 'SendMessage', version: '1.0', tag: 'task', state: 'TASK_STATE_INPUT_REQUIRED' },
  'v1--grpc-send-question': { op: 'SendMessage', version: '1.0', tag: 'message' },
  'v1--grpc-send-return-immediately': { op: 'SendMessage', version: '1.0', tag: 'task', state: 'TASK_STATE_SUBMITTED' },
  'v1--grpc-send-streaming': {
    op: 'SendStreamingMessage',
    version: '1.0',
    tag: 'task',
    state: 'TASK_STATE_COMPLETED',
    events: 5,
  },
  'v1--grpc-subscribe': { op: 'SubscribeToTask', version: '1.0', tag: 'task', state: 'TASK_STATE_COMPLETED' },
  'v1compat--grpc-v03client-get-task': { op: 'GetTask', version: '0.3', tag: 'task', state: 'TASK_STATE_COMPLETED' },
  'v1compat--grpc-v03client-send-blocking': {
    op: 'SendMessage',
    version: '0.3',
    tag: 'task',
    state: 'TASK_STATE_COMPLETED',
  },
  'v1compat--grpc-v03client-send-question': { op: 'SendMessage', version: '0.3', tag: 'message' },
  'v1compat--grpc-v03client-send-streaming': {
    op: 'SendStreamingMessage',
    version: '0.3',
    tag: 'task',
    state: 'TASK_STATE_COMPLETED',
  },
};

function headersOf(c: GrpcCapture): Record<string, string> {
  return Object.fromEntries(c.request.headers.filter(([k]) => !k.startsWith(':')));
}

function decodeRequest(c: GrpcCapture, chunks: readonly Uint8Array[]): RequestFacts {
  const decoder = createRequestDecoder(
    { method: 'POST', path: headerValue(c.request.headers, ':path')!, query: '', headers: headersOf(c) },
    { maxBytes: MAX_BYTES },
  );
  for (const chunk of chunks) decoder.push(chunk);
  return decoder.end();
}

function decodeResponse(c: GrpcCapture, req: RequestFacts, chunks: readonly Uint8Array[]): ResponseFacts {
  const res = c.response;
  const head = {
    status: Number(headerValue(res.headers, ':status')),
    contentType: headerValue(res.headers, 'content-type'),
  };
  const decoder = createResponseDecoder(req, head, { maxBytes: MAX_BYTES });
  for (const chunk of chunks) decoder.push(chunk);
  return decoder.end({ trailers: Object.fromEntries(res.trailers) });
}

const requestBytes = (c: GrpcCapture) => Buffer.concat(c.request.chunks);
const responseBytes = (c: GrpcCapture) => Buffer.concat(c.response.chunks.map((x) => x.bytes));

/** The facts that must not depend on chunking (stream timings do: they are left out). */
function stable(req: RequestFacts, res: ResponseFacts) {
  const { stream, ...rest } = res;
  return { req, res: { ...rest, stream: stream && { ...stream, firstEventMs: undefined } } };
}

describe('gRPC decoders on the captures', () => {
  it('has an expectation for every capture', () => {
    expect(listGrpcCaptures().sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  describe.each(listGrpcCaptures())('%s', (name) => {
    const c = loadGrpcCapture(name);
    const want = EXPECTED[name]!;
    const req = decodeRequest(c, c.request.chunks);
    const res = decodeResponse(
      c,
      req,
      c.response.chunks.map((x) => x.bytes),
    );

    it('gives the facts written down for it', () => {
      expect({ binding: req.binding, op: req.operation, version: req.version, malformed: req.malformed }).toEqual({
        binding: 'grpc',
        op: want.op,
        version: want.version,
        malformed: false,
      });
      expect({ tag: res.tag, state: res.state, grpcStatus: res.error?.grpcStatus }).toEqual({
        tag: want.tag,
        state: want.state,
        grpcStatus: want.grpcStatus,
      });
      if (want.events !== undefined) {
        const { events } = res.stream!;
        expect(Object.values(events).reduce((a, b) => a + b, 0)).toBe(want.events);
      }
      expect(res.partial || res.malformed).toBe(false);
    });

    it('gives the same facts split at every byte offset', () => {
      const whole = stable(req, res);
      const reqBytes = requestBytes(c);
      const resBytes = responseBytes(c);
      for (let at = 0; at <= reqBytes.length; at++) {
        const split = decodeRequest(c, splitAt(reqBytes, [at]));
        expect(split).toEqual(req);
      }
      for (let at = 0; at <= resBytes.length; at++) {
        const split = decodeResponse(c, req, splitAt(resBytes, [at]));
        expect(stable(req, split)).toEqual(whole);
      }
    });

    it('gives the same facts in random chunkings', () => {
      const whole = stable(req, res);
      const resBytes = responseBytes(c);
      fc.assert(
        fc.property(fc.array(fc.nat(resBytes.length), { maxLength: 12 }), (cuts) => {
          expect(stable(req, decodeResponse(c, req, splitAt(resBytes, cuts)))).toEqual(whole);
        }),
        { numRuns: 50 },
      );
    });
  });
});
