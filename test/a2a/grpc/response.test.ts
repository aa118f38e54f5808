import { encodeGrpcStatusDetails } from '@a2a-js/sdk/errors/grpc';
import fc from 'fast-check';
import { BinaryReader, BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { describe, expect, it } from 'vitest';
import type { RequestContext } from '../../../src/a2a/checks.js';
import { createResponseDecoder, responseHoldBytes, type ResponseFacts } from '../../../src/a2a/response.js';
import type { Operation, ProtocolVersion } from '../../../src/a2a/operations.js';
import { encodeGrpcFrame } from '../../../src/codec/grpc-frames.js';
import { splitAt } from '../../support/chunks.js';
import {
  artifact03,
  artifact1,
  concat,
  frame,
  message03,
  message1,
  pushConfig1,
  responseBytes,
  task03,
  task1,
  V03,
  V1,
} from './sdk-wire.js';

const GRPC = { status: 200, contentType: 'application/grpc' };
const OK = { 'grpc-status': '0' };

function ctx(
  operation: Operation,
  version: ProtocolVersion = '1.0',
  over: Partial<RequestContext> = {},
): RequestContext {
  return {
    binding: 'grpc',
    version,
    operation,
    jsonrpcId: undefined,
    jsonrpcIdPresent: undefined,
    taskId: undefined,
    blocking: undefined,
    historyLength: undefined,
    ...over,
  };
}

type Trailers = Record<string, string | undefined>;

function decode(
  req: RequestContext,
  chunks: Uint8Array[],
  opts: { trailers?: Trailers; aborted?: boolean; maxBytes?: number } = {},
): { facts: ResponseFacts; maxHeld: number; taskIdSeen: (string | undefined)[] } {
  const decoder = createResponseDecoder(req, GRPC, { maxBytes: opts.maxBytes ?? 64 * 1024 });
  let maxHeld = 0;
  const taskIdSeen: (string | undefined)[] = [];
  for (const chunk of chunks) {
    decoder.push(chunk);
    maxHeld = Math.max(maxHeld, decoder.heldBytes);
    taskIdSeen.push(decoder.streamTaskId);
  }
  const facts = decoder.end({ aborted: opts.aborted, trailers: 'trailers' in opts ? opts.trailers : OK });
  return { facts, maxHeld, taskIdSeen };
}

const rules = (facts: ResponseFacts) => facts.findings.map((f) => f.rule);

const send1 = (payload: Record<string, unknown>) => frame(responseBytes(V1.sendMessage!, { payload }));
const stream1 = (payload: Record<string, unknown>) => frame(responseBytes(V1.sendStreamingMessage!, { payload }));
const stream03 = (payload: Record<string, unknown>) => frame(responseBytes(V03.sendStreamingMessage!, { payload }));
const statusEvent1 = (state: number, taskId = 'task-1') => ({
  $case: 'statusUpdate',
  value: { taskId, contextId: 'ctx-1', status: { state, message: undefined, timestamp: undefined } },
});
const artifactEvent1 = (taskId = 'task-1') => ({
  $case: 'artifactUpdate',
  value: { taskId, contextId: 'ctx-1', artifact: artifact1('a-1'), append: false, lastChunk: true },
});

describe('gRPC unary responses', () => {
  it('1.0 SendMessage → task: ids, state, artifact and history counts', () => {
    const task = task1('task-1', 3, { artifacts: [artifact1('a'), artifact1('b')], history: [message1()] });
    const { facts } = decode(ctx('SendMessage', '1.0', { blocking: true }), [send1({ $case: 'task', value: task })]);
    expect(facts).toMatchObject({
      httpStatus: 200,
      bodyKind: 'grpc',
      tag: 'task',
      taskId: 'task-1',
      contextId: 'ctx-1',
      state: 'TASK_STATE_COMPLETED',
      artifactCount: 2,
      historyCount: 1,
      partial: false,
      malformed: false,
      aborted: false,
      findings: [],
    });
    expect(facts.error).toBeUndefined();
  });

  it('1.0 SendMessage → message', () => {
    const { facts } = decode(ctx('SendMessage'), [send1({ $case: 'message', value: message1({ contextId: 'c' }) })]);
    expect(facts).toMatchObject({ tag: 'message', messageId: 'm-1', contextId: 'c', findings: [] });
  });

  it('0.3 SendMessage → task (TASK_STATE_CANCELLED normalised) and → msg', () => {
    const task = frame(responseBytes(V03.sendMessage!, { payload: { $case: 'task', value: task03('t', 5) } }));
    expect(decode(ctx('SendMessage', '0.3'), [task]).facts).toMatchObject({
      tag: 'task',
      state: 'TASK_STATE_CANCELED',
    });
    const msg = frame(responseBytes(V03.sendMessage!, { payload: { $case: 'msg', value: message03() } }));
    expect(decode(ctx('SendMessage', '0.3'), [msg]).facts).toMatchObject({ tag: 'message', messageId: 'm-1' });
  });

  it('a blocking send answered with a working task, and an empty SendMessageResponse, are findings', () => {
    const working = send1({ $case: 'task', value: task1('t', 2) });
    expect(rules(decode(ctx('SendMessage', '1.0', { blocking: true }), [working]).facts)).toEqual([
      'a2a.blocking-send-not-final',
    ]);
    expect(rules(decode(ctx('SendMessage', '1.0', { blocking: false }), [working]).facts)).toEqual([]);
    const neither = decode(ctx('SendMessage'), [send1({})]).facts;
    expect(neither.tag).toBe('other');
    expect(neither.findings).toEqual([{ rule: 'a2a.send-result-shape', count: 1, detail: 'neither task nor message' }]);
  });

  it('both oneof members on the wire: the last counts, and it is reported', () => {
    const both = concat(
      frame(
        concat(
          responseBytes(V1.sendMessage!, { payload: { $case: 'message', value: message1() } }),
          responseBytes(V1.sendMessage!, { payload: { $case: 'task', value: task1('t', 3) } }),
        ),
      ),
    );
    const { facts } = decode(ctx('SendMessage'), [both]);
    expect(facts.tag).toBe('task');
    expect(facts.findings).toContainEqual({ rule: 'a2a.send-result-shape', count: 1, detail: 'both task and message' });
  });

  it('GetTask and CancelTask → Task, checked against the request', () => {
    const task = frame(responseBytes(V1.getTask!, task1('task-2', 2, { history: [message1(), message1()] })));
    const { facts } = decode(ctx('GetTask', '1.0', { taskId: 'task-1', historyLength: 1 }), [task]);
    expect(facts).toMatchObject({ tag: 'task', taskId: 'task-2', state: 'TASK_STATE_WORKING', historyCount: 2 });
    expect(rules(facts)).toEqual(['a2a.task-id-mismatch', 'a2a.history-length-exceeded']);
    const canceled = frame(responseBytes(V03.cancelTask!, task03('task-1', 5)));
    expect(decode(ctx('CancelTask', '0.3', { taskId: 'task-1' }), [canceled]).facts).toMatchObject({
      tag: 'task',
      state: 'TASK_STATE_CANCELED',
      findings: [],
    });
  });

  it('the other rpcs answer neither task nor message: tag other, as on the JSON path', () => {
    const cases: [Operation, Uint8Array][] = [
      ['ListTasks', responseBytes(V1.listTasks!, { tasks: [task1('a', 3)], nextPageToken: 'n', pageSize: 1 })],
      [
        'CreateTaskPushNotificationConfig',
        responseBytes(V1.createTaskPushNotificationConfig!, pushConfig1({ url: 'u' })),
      ],
      ['GetTaskPushNotificationConfig', responseBytes(V1.getTaskPushNotificationConfig!, pushConfig1({ id: 'c' }))],
      [
        'ListTaskPushNotificationConfigs',
        responseBytes(V1.listTaskPushNotificationConfigs!, { configs: [pushConfig1()] }),
      ],
      ['DeleteTaskPushNotificationConfig', responseBytes(V1.deleteTaskPushNotificationConfig!, {})],
      ['GetExtendedAgentCard', responseBytes(V1.getExtendedAgentCard!, { name: 'agent', version: '1' })],
    ];
    for (const [operation, message] of cases) {
      const { facts } = decode(ctx(operation), [frame(message)]);
      expect(facts, operation).toMatchObject({ tag: 'other', bodyKind: 'grpc', malformed: false, findings: [] });
    }
  });

  it('an error status in the trailers: tag error with code, name, ErrorInfo reason and message', () => {
    const details = Buffer.from(encodeGrpcStatusDetails(5, 'Task not found', 'TASK_NOT_FOUND')).toString('base64');
    const trailers = { 'grpc-status': '5', 'grpc-message': 'Task%20not%20found', 'grpc-status-details-bin': details };
    const { facts } = decode(ctx('GetTask', '1.0', { taskId: 't' }), [], { trailers });
    expect(facts).toMatchObject({ tag: 'error', bodyKind: 'empty', bodyBytes: 0, findings: [] });
    expect(facts.error).toEqual({
      reason: 'TASK_NOT_FOUND',
      status: 'NOT_FOUND',
      httpStatus: 200,
      message: 'Task not found',
      grpcStatus: 5,
    });
  });

  it('a trailers-only error without details, and a status with a body, still say error', () => {
    const { facts } = decode(ctx('SendMessage'), [], {
      trailers: { 'grpc-status': '12', 'content-type': 'application/grpc' },
    });
    expect(facts.error).toEqual({
      httpStatus: 200,
      grpcStatus: 12,
      status: 'UNIMPLEMENTED',
      reason: undefined,
      message: undefined,
    });
    const body = send1({ $case: 'task', value: task1('t', 3) });
    expect(decode(ctx('SendMessage'), [body], { trailers: { 'grpc-status': '13' } }).facts.tag).toBe('error');
  });

  it('a message over the cap: partial, bounded memory, and responseHoldBytes says the cap', () => {
    const big = send1({ $case: 'task', value: task1('t', 3, { artifacts: Array(50).fill(artifact1('x')) }) });
    const { facts, maxHeld } = decode(ctx('SendMessage'), splitAt(big, [6, 100, 400]), { maxBytes: 64 });
    expect(facts).toMatchObject({ partial: true, tag: 'other', taskId: undefined });
    expect(rules(facts)).toEqual(['gateway.inspect-partial']);
    expect(maxHeld).toBeLessThanOrEqual(64);
    expect(responseHoldBytes(GRPC, { maxBytes: 1000, maxEventBytes: 300 })).toBe(300);
  });

  it('bytes that are no protobuf, two messages, a body cut: malformed, never thrown', () => {
    const garbage = encodeGrpcFrame(new Uint8Array([0x0a, 0x7f]));
    expect(decode(ctx('GetTask'), [garbage]).facts).toMatchObject({ malformed: true, tag: 'other' });
    expect(rules(decode(ctx('GetTask'), [garbage]).facts)).toEqual(['a2a.invalid-protobuf']);
    const two = concat(send1({ $case: 'message', value: message1() }), send1({ $case: 'message', value: message1() }));
    expect(decode(ctx('SendMessage'), [two]).facts.malformed).toBe(true);
    const cut = send1({ $case: 'message', value: message1() }).subarray(0, 9);
    expect(decode(ctx('SendMessage'), [cut]).facts.malformed).toBe(true);
    expect(decode(ctx('SendMessage'), [cut], { aborted: true, trailers: undefined }).facts).toMatchObject({
      malformed: false,
      aborted: true,
    });
  });
});

describe('gRPC streams', () => {
  const task = stream1({ $case: 'task', value: task1('task-1', 1) });
  const body = concat(task, stream1(statusEvent1(2)), stream1(artifactEvent1()), stream1(statusEvent1(3)));

  it('a 1.0 task stream: the same StreamFacts as an SSE one', () => {
    const { facts, taskIdSeen } = decode(ctx('SendStreamingMessage'), splitAt(body, [task.length]));
    expect(facts).toMatchObject({
      bodyKind: 'grpc',
      tag: 'task',
      taskId: 'task-1',
      contextId: 'ctx-1',
      state: 'TASK_STATE_COMPLETED',
      findings: [],
    });
    expect(facts.stream).toMatchObject({
      events: { task: 1, message: 0, statusUpdate: 2, artifactUpdate: 1, error: 0, other: 0 },
      eventCount: 4,
      closure: 'terminal',
      reachedTerminal: true,
      finalFlag: false,
      oversizeEvents: 0,
      cutMidEvent: false,
    });
    expect(taskIdSeen).toEqual(['task-1', 'task-1']);
  });

  it('unknown fields (draft 1.1: Task.generation 7, StatusUpdate.generation 5) and an unknown StreamResponse member are skipped', () => {
    // dev-1.1 a2a.proto (A2A commit 28491879): int64 generation = 7 on Task, = 5 on
    // TaskStatusUpdateEvent. A `messageUpdate` member has no field number anywhere yet: 5 here.
    const extra = (bytes: Uint8Array, write: (w: BinaryWriter) => void) => {
      const w = new BinaryWriter();
      write(w);
      return concat(bytes, w.finish());
    };
    const taskMsg = extra(responseBytes(V1.getTask!, task1('task-1', 1)), (w) => w.tag(7, WireType.Varint).int64(1));
    const wrap = (field: number, inner: Uint8Array) => {
      const w = new BinaryWriter();
      w.tag(field, WireType.LengthDelimited).bytes(inner);
      return frame(w.finish());
    };
    // StreamResponse.status_update is field 3: its TaskStatusUpdateEvent with generation appended.
    const status = new BinaryReader(responseBytes(V1.sendStreamingMessage!, { payload: statusEvent1(3) }));
    expect(status.tag()[0]).toBe(3);
    const withGeneration = wrap(
      3,
      extra(status.bytes(), (w) => w.tag(5, WireType.Varint).int64(3)),
    );
    const unknownMember = wrap(5, new TextEncoder().encode('opaque messageUpdate'));
    const drafted = concat(wrap(1, taskMsg), unknownMember, stream1(artifactEvent1()), withGeneration);
    const { facts } = decode(ctx('SendStreamingMessage'), [drafted]);
    expect(facts).toMatchObject({ tag: 'task', taskId: 'task-1', state: 'TASK_STATE_COMPLETED', findings: [] });
    expect(facts.stream?.events).toMatchObject({ task: 1, statusUpdate: 1, artifactUpdate: 1, other: 1 });
  });

  it('progress after each message: state changes and artifact updates', () => {
    const decoder = createResponseDecoder(ctx('SubscribeToTask', '1.0', { taskId: 'task-1' }), GRPC, {
      maxBytes: 4096,
    });
    decoder.push(body);
    expect(decoder.streamProgress?.stateChanges).toEqual([
      'TASK_STATE_SUBMITTED',
      'TASK_STATE_WORKING',
      'TASK_STATE_COMPLETED',
    ]);
    expect(decoder.streamProgress?.artifactUpdates).toBe(1);
    expect(decoder.streamContextId).toBe('ctx-1');
  });

  it('a 0.3 stream with final: true, then an event after it', () => {
    const final = {
      $case: 'statusUpdate',
      value: {
        taskId: 't',
        contextId: 'c',
        status: { state: 6, update: undefined, timestamp: undefined },
        final: true,
      },
    };
    const artifact = { $case: 'artifactUpdate', value: { taskId: 't', contextId: 'c', artifact: artifact03('a') } };
    const b = concat(stream03({ $case: 'task', value: task03('t', 2) }), stream03(final), stream03(artifact));
    const { facts } = decode(ctx('SendStreamingMessage', '0.3'), [b]);
    expect(facts.stream).toMatchObject({ finalFlag: true, closure: 'interrupted', eventCount: 3 });
    expect(rules(facts)).toContain('a2a.stream-event-after-terminal');
    expect(rules(facts)).not.toContain('a2a.version-shape-mismatch');
    // `final` is field 4, a varint, only in 0.3 (1.0 has metadata there): a 1.0 request so answered is told.
    const mixed = decode(ctx('SendStreamingMessage', '1.0'), [b]).facts;
    expect(rules(mixed)).toContain('a2a.version-shape-mismatch');
  });

  it('a message stream, and a message after a task', () => {
    const m = stream1({ $case: 'message', value: message1() });
    expect(decode(ctx('SendStreamingMessage'), [m]).facts).toMatchObject({
      tag: 'message',
      stream: { closure: 'message' },
    });
    const after = decode(ctx('SendStreamingMessage'), [concat(task, m)]).facts;
    expect(rules(after)).toContain('a2a.stream-message-after-task');
  });

  it('an error in the trailers after events ends the stream in error; a trailers-only one is tag error', () => {
    const trailers = { 'grpc-status': '14', 'grpc-message': 'gone' };
    const { facts } = decode(ctx('SendStreamingMessage'), [task], { trailers });
    expect(facts).toMatchObject({ tag: 'task', stream: { closure: 'error', events: { error: 1 } } });
    expect(facts.error).toMatchObject({ grpcStatus: 14, status: 'UNAVAILABLE', message: 'gone' });
    const only = decode(ctx('SubscribeToTask'), [], { trailers: { 'grpc-status': '5' } }).facts;
    expect(only).toMatchObject({ tag: 'error', bodyKind: 'empty', error: { grpcStatus: 5 } });
  });

  it('an agent closing an active task stream, and one cut mid-message', () => {
    expect(rules(decode(ctx('SendStreamingMessage'), [task]).facts)).toEqual(['a2a.stream-ended-active']);
    const cut = decode(ctx('SendStreamingMessage'), [concat(task, stream1(statusEvent1(2)).subarray(0, 8))]).facts;
    expect(cut.stream?.cutMidEvent).toBe(true);
    expect(rules(cut)).toContain('a2a.stream-cut-mid-event');
  });

  it('an oversized stream message is skipped and counted, memory bounded', () => {
    const big = stream1({ $case: 'task', value: task1('task-1', 1, { artifacts: Array(40).fill(artifact1('x')) }) });
    const { facts, maxHeld } = decode(
      ctx('SendStreamingMessage'),
      splitAt(concat(big, stream1(statusEvent1(3))), [9, 300]),
      {
        maxBytes: 200,
      },
    );
    expect(facts).toMatchObject({ partial: true, stream: { oversizeEvents: 1, eventCount: 1 } });
    expect(maxHeld).toBeLessThanOrEqual(200);
  });

  it('gives identical facts at every split offset', () => {
    const req = ctx('SendStreamingMessage');
    const whole = decode(req, [body]).facts;
    for (let cut = 0; cut <= body.length; cut++) {
      for (const second of [cut + 1, cut + 7]) {
        expect(decode(req, splitAt(body, [cut, second])).facts, `at ${cut}, ${second}`).toEqual(whole);
      }
    }
  });

  it('never throws on arbitrary bytes, framed or not, for any operation', () => {
    const ops: Operation[] = ['SendMessage', 'SendStreamingMessage', 'GetTask', 'ListTasks', 'SubscribeToTask'];
    fc.assert(
      fc.property(
        fc.constantFrom(...ops),
        fc.array(fc.uint8Array({ maxLength: 80 }), { maxLength: 4 }),
        fc.boolean(),
        fc.option(fc.string({ maxLength: 40 }), { nil: undefined }),
        (op, messages, framed, details) => {
          const b = concat(...messages.map((m) => (framed ? encodeGrpcFrame(m) : m)));
          const trailers = { 'grpc-status': details === undefined ? '0' : '3', 'grpc-status-details-bin': details };
          const { facts, maxHeld } = decode(ctx(op), [b], { trailers, maxBytes: 48 });
          expect(facts.bodyBytes).toBe(b.length);
          expect(maxHeld).toBeLessThanOrEqual(48);
        },
      ),
    );
  });
});
