import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { grpcMethod, grpcPath } from '../../../src/a2a/grpc/methods.js';
import { OPERATIONS } from '../../../src/a2a/operations.js';
import { createRequestDecoder, type RequestFacts, type RequestHead } from '../../../src/a2a/request.js';
import { encodeGrpcFrame } from '../../../src/codec/grpc-frames.js';
import { splitAt } from '../../support/chunks.js';
import {
  concat,
  frame,
  message03,
  message1,
  pushConfig03,
  pushConfig1,
  requestBytes,
  V03,
  V1,
  type SdkRpc,
} from './sdk-wire.js';

function head(rpc: SdkRpc, headers: Record<string, string> = {}): RequestHead {
  return { method: 'POST', path: rpc.path, query: '', headers: { 'content-type': 'application/grpc', ...headers } };
}

function classify(h: RequestHead, chunks: Uint8Array[], opts: { maxBytes?: number; aborted?: boolean } = {}) {
  const decoder = createRequestDecoder(h, { maxBytes: opts.maxBytes ?? 64 * 1024 });
  let maxHeld = 0;
  for (const chunk of chunks) {
    decoder.push(chunk);
    maxHeld = Math.max(maxHeld, decoder.heldBytes);
  }
  return { facts: decoder.end({ aborted: opts.aborted }), maxHeld };
}

interface Case {
  readonly name: string;
  readonly rpc: SdkRpc;
  readonly value: Record<string, unknown>;
  readonly headers?: Record<string, string>;
  readonly expected: Partial<RequestFacts>;
}

const V1_HEADERS = { 'a2a-version': '1.0' };

const CASES: Case[] = [
  {
    name: '1.0 SendMessage with everything',
    rpc: V1.sendMessage!,
    headers: V1_HEADERS,
    value: {
      tenant: 'acme',
      message: message1({ contextId: 'ctx-1', taskId: 'task-1', referenceTaskIds: ['ref-1', 'ref-2'] }),
      configuration: {
        acceptedOutputModes: ['text/plain'],
        taskPushNotificationConfig: pushConfig1({ url: 'http://10.0.0.1/hook' }),
        historyLength: 3,
        returnImmediately: true,
      },
    },
    expected: {
      binding: 'grpc',
      version: '1.0',
      versionSignal: 'header',
      operation: 'SendMessage',
      streaming: false,
      tenant: 'acme',
      taskId: 'task-1',
      contextId: 'ctx-1',
      messageId: 'm-1',
      blocking: false,
      historyLength: 3,
      pushUrl: 'http://10.0.0.1/hook',
      pushUrls: ['http://10.0.0.1/hook'],
      taskIds: ['task-1', 'ref-1', 'ref-2'],
      contextIds: ['ctx-1'],
      body: 'complete',
    },
  },
  {
    name: '1.0 SendMessage, no configuration: blocking',
    rpc: V1.sendMessage!,
    headers: V1_HEADERS,
    value: { message: message1() },
    expected: {
      operation: 'SendMessage',
      blocking: true,
      taskIds: undefined,
      contextIds: undefined,
      tenant: undefined,
    },
  },
  {
    name: '1.0 SendStreamingMessage',
    rpc: V1.sendStreamingMessage!,
    headers: V1_HEADERS,
    value: { message: message1({ contextId: 'ctx-2' }) },
    expected: { operation: 'SendStreamingMessage', streaming: true, blocking: undefined, contextIds: ['ctx-2'] },
  },
  {
    name: '1.0 GetTask',
    rpc: V1.getTask!,
    headers: V1_HEADERS,
    value: { tenant: 't', id: 'task-1', historyLength: 0 },
    expected: { operation: 'GetTask', taskId: 'task-1', taskIds: ['task-1'], historyLength: 0, tenant: 't' },
  },
  {
    name: '1.0 ListTasks',
    rpc: V1.listTasks!,
    headers: V1_HEADERS,
    value: { contextId: 'ctx-9', historyLength: 2 },
    expected: { operation: 'ListTasks', contextId: 'ctx-9', historyLength: 2, taskIds: undefined },
  },
  {
    name: '1.0 CancelTask',
    rpc: V1.cancelTask!,
    headers: V1_HEADERS,
    value: { id: 'task-1' },
    expected: { operation: 'CancelTask', taskId: 'task-1', taskIds: ['task-1'] },
  },
  {
    name: '1.0 SubscribeToTask',
    rpc: V1.subscribeToTask!,
    headers: V1_HEADERS,
    value: { id: 'task-1' },
    expected: { operation: 'SubscribeToTask', streaming: true, taskId: 'task-1' },
  },
  {
    name: '1.0 CreateTaskPushNotificationConfig',
    rpc: V1.createTaskPushNotificationConfig!,
    headers: V1_HEADERS,
    value: pushConfig1({ taskId: 'task-1', id: 'cfg-1', url: 'https://hooks.example.com/a' }),
    expected: {
      operation: 'CreateTaskPushNotificationConfig',
      taskId: 'task-1',
      pushConfigId: 'cfg-1',
      pushUrl: 'https://hooks.example.com/a',
      pushUrls: ['https://hooks.example.com/a'],
      findings: [],
    },
  },
  {
    name: '1.0 GetTaskPushNotificationConfig',
    rpc: V1.getTaskPushNotificationConfig!,
    headers: V1_HEADERS,
    value: { taskId: 'task-1', id: 'cfg-1' },
    expected: { operation: 'GetTaskPushNotificationConfig', taskId: 'task-1', pushConfigId: 'cfg-1' },
  },
  {
    name: '1.0 ListTaskPushNotificationConfigs',
    rpc: V1.listTaskPushNotificationConfigs!,
    headers: V1_HEADERS,
    value: { taskId: 'task-1', tenant: 'x' },
    expected: { operation: 'ListTaskPushNotificationConfigs', taskId: 'task-1', tenant: 'x', pushConfigId: undefined },
  },
  {
    name: '1.0 DeleteTaskPushNotificationConfig',
    rpc: V1.deleteTaskPushNotificationConfig!,
    headers: V1_HEADERS,
    value: { taskId: 'task-1', id: 'cfg-1' },
    expected: { operation: 'DeleteTaskPushNotificationConfig', taskId: 'task-1', pushConfigId: 'cfg-1' },
  },
  {
    name: '1.0 GetExtendedAgentCard (empty message)',
    rpc: V1.getExtendedAgentCard!,
    headers: V1_HEADERS,
    value: {},
    expected: { operation: 'GetExtendedAgentCard', body: 'complete', bodyBytes: 5, findings: [] },
  },
  {
    name: '1.0 package without a2a-version',
    rpc: V1.getTask!,
    value: { id: 'task-1' },
    expected: {
      version: '1.0',
      versionSignal: 'grpc-package',
      findings: [{ rule: 'a2a.version-header-missing', count: 1 }],
    },
  },
  {
    name: '1.0 package with a2a-version 0.3: the header decides, the message is read as 1.0',
    rpc: V1.getTask!,
    headers: { 'a2a-version': '0.3' },
    value: { id: 'task-1' },
    expected: {
      version: '0.3',
      versionSignal: 'header',
      taskId: 'task-1',
      findings: [{ rule: 'a2a.version-signals-disagree', count: 1, detail: 'declared 0.3' }],
    },
  },
  {
    name: '0.3 SendMessage, blocking',
    rpc: V03.sendMessage!,
    value: {
      request: message03({ contextId: 'ctx-1', taskId: 'task-1' }),
      configuration: {
        acceptedOutputModes: [],
        pushNotification: pushConfig03({ url: 'http://127.0.0.1/hook' }),
        historyLength: 5,
        blocking: true,
      },
    },
    expected: {
      binding: 'grpc',
      version: '0.3',
      versionSignal: 'grpc-package',
      operation: 'SendMessage',
      taskId: 'task-1',
      contextId: 'ctx-1',
      messageId: 'm-1',
      blocking: true,
      historyLength: 5,
      pushUrl: 'http://127.0.0.1/hook',
      taskIds: ['task-1'],
      contextIds: ['ctx-1'],
      findings: [{ rule: 'a2a.push-url-private', count: 1, detail: 'http://127.0.0.1/hook' }],
    },
  },
  {
    name: '0.3 SendMessage, configuration without blocking: not blocking',
    rpc: V03.sendMessage!,
    value: { request: message03(), configuration: { acceptedOutputModes: [], historyLength: 0, blocking: false } },
    expected: { blocking: false, historyLength: undefined },
  },
  {
    name: '0.3 SendMessage, no configuration: blocking',
    rpc: V03.sendMessage!,
    value: { request: message03() },
    expected: { blocking: true },
  },
  {
    name: '0.3 GetTask by resource name',
    rpc: V03.getTask!,
    value: { name: 'tasks/task-1', historyLength: 4 },
    expected: { version: '0.3', operation: 'GetTask', taskId: 'task-1', taskIds: ['task-1'], historyLength: 4 },
  },
  {
    name: '0.3 CancelTask',
    rpc: V03.cancelTask!,
    value: { name: 'tasks/task-1' },
    expected: { operation: 'CancelTask', taskId: 'task-1' },
  },
  {
    name: '0.3 TaskSubscription',
    rpc: V03.taskSubscription!,
    value: { name: 'tasks/task-1' },
    expected: { operation: 'SubscribeToTask', streaming: true, taskId: 'task-1' },
  },
  {
    name: '0.3 CreateTaskPushNotificationConfig',
    rpc: V03.createTaskPushNotificationConfig!,
    value: {
      parent: 'tasks/task-1',
      configId: 'cfg-1',
      config: {
        name: 'tasks/task-2/pushNotificationConfigs/cfg-1',
        pushNotificationConfig: pushConfig03({ url: 'https://hooks.example.com/b' }),
      },
    },
    expected: {
      operation: 'CreateTaskPushNotificationConfig',
      taskId: 'task-1',
      pushConfigId: 'cfg-1',
      pushUrl: 'https://hooks.example.com/b',
      taskIds: ['task-1', 'task-2'],
    },
  },
  {
    name: '0.3 GetTaskPushNotificationConfig',
    rpc: V03.getTaskPushNotificationConfig!,
    value: { name: 'tasks/task-1/pushNotificationConfigs/cfg-1' },
    expected: { operation: 'GetTaskPushNotificationConfig', taskId: 'task-1', pushConfigId: 'cfg-1' },
  },
  {
    name: '0.3 ListTaskPushNotificationConfig',
    rpc: V03.listTaskPushNotificationConfig!,
    value: { parent: 'tasks/task-1' },
    expected: { operation: 'ListTaskPushNotificationConfigs', taskId: 'task-1' },
  },
  {
    name: '0.3 DeleteTaskPushNotificationConfig',
    rpc: V03.deleteTaskPushNotificationConfig!,
    value: { name: 'tasks/task-1/pushNotificationConfigs/cfg-1' },
    expected: { operation: 'DeleteTaskPushNotificationConfig', taskId: 'task-1', pushConfigId: 'cfg-1' },
  },
  {
    name: '0.3 GetAgentCard',
    rpc: V03.getAgentCard!,
    value: {},
    expected: { operation: 'GetExtendedAgentCard', version: '0.3' },
  },
];

describe('gRPC request facts', () => {
  for (const c of CASES) {
    it(c.name, () => {
      const body = frame(requestBytes(c.rpc, c.value));
      const { facts } = classify(head(c.rpc, c.headers), [body]);
      expect(facts).toMatchObject({ body: 'complete', partial: false, malformed: false, bodyBytes: body.length });
      for (const [key, value] of Object.entries(c.expected))
        expect(facts[key as keyof RequestFacts], key).toEqual(value);
      expect(facts.jsonrpcId).toBeUndefined();
      expect(facts.document).toBeUndefined();
    });
  }

  it('gives identical facts at every split offset of every request', () => {
    for (const c of CASES) {
      const body = frame(requestBytes(c.rpc, c.value));
      const whole = classify(head(c.rpc, c.headers), [body]).facts;
      for (let cut = 0; cut <= body.length; cut++) {
        expect(classify(head(c.rpc, c.headers), splitAt(body, [cut])).facts, `${c.name} at ${cut}`).toEqual(whole);
      }
    }
  });

  it('is dispatched by content-type application/grpc+proto too, and not for JSON', () => {
    const rpc = V1.getTask!;
    const body = frame(requestBytes(rpc, { id: 'x' }));
    expect(classify(head(rpc, { 'content-type': 'application/grpc+proto' }), [body]).facts.binding).toBe('grpc');
    const json = { ...head(rpc), headers: { 'content-type': 'application/json' } };
    expect(classify(json, [body]).facts.binding).not.toBe('grpc');
  });
});

describe('gRPC request bodies that are not one whole message', () => {
  const rpc = V1.sendMessage!;
  const message = requestBytes(rpc, { message: message1({ taskId: 'task-1' }) });

  it('an unknown method path: operation unknown, with a finding', () => {
    const { facts } = classify({ ...head(rpc), path: '/lf.a2a.v1.A2AService/Nope' }, [frame(message)]);
    expect(facts).toMatchObject({ binding: 'grpc', operation: 'unknown', version: '0.3', versionSignal: 'default' });
    expect(facts.findings).toContainEqual({
      rule: 'a2a.unknown-operation',
      count: 1,
      detail: 'gRPC /lf.a2a.v1.A2AService/Nope',
    });
  });

  it('a message over maxBytes: partial, nothing from the body, memory bounded', () => {
    const { facts, maxHeld } = classify(head(rpc), splitAt(frame(message), [7, 20]), { maxBytes: 10 });
    expect(facts).toMatchObject({ operation: 'SendMessage', body: 'partial', partial: true, taskId: undefined });
    expect(facts.blocking).toBeUndefined();
    expect(facts.findings.map((f) => f.rule)).toContain('gateway.inspect-partial');
    expect(maxHeld).toBeLessThanOrEqual(10);
  });

  it('a body cut inside the message: partial when aborted, malformed when it just ended', () => {
    const cut = frame(message).subarray(0, 12);
    expect(classify(head(rpc), [cut], { aborted: true }).facts.body).toBe('partial');
    expect(classify(head(rpc), [cut]).facts.body).toBe('malformed');
  });

  it('two messages, bytes that are no protobuf, a compressed flag without grpc-encoding: malformed', () => {
    const two = concat(frame(message), frame(message));
    expect(classify(head(rpc), [two]).facts).toMatchObject({ body: 'malformed', malformed: true, taskId: undefined });
    const garbage = frame(new Uint8Array([0xff, 0xff, 0xff]));
    expect(classify(head(rpc), [garbage]).facts).toMatchObject({ body: 'malformed', operation: 'SendMessage' });
    expect(classify(head(rpc, V1_HEADERS), [garbage]).facts.findings).toEqual([
      { rule: 'a2a.invalid-protobuf', count: 1, detail: 'request message is not valid protobuf' },
    ]);
    const compressed = frame(message);
    compressed[0] = 1;
    expect(classify(head(rpc), [compressed]).facts.body).toBe('malformed');
  });

  it('a compressed message with grpc-encoding: partial, not read', () => {
    const compressed = frame(message);
    compressed[0] = 1;
    const { facts } = classify(head(rpc, { 'grpc-encoding': 'gzip' }), [compressed]);
    expect(facts).toMatchObject({ body: 'partial', taskId: undefined });
    expect(facts.findings).toContainEqual({
      rule: 'gateway.inspect-partial',
      count: 1,
      detail: 'request message is gzip',
    });
  });

  it('no body at all: empty', () => {
    expect(classify(head(rpc), []).facts).toMatchObject({ body: 'empty', operation: 'SendMessage', bodyBytes: 0 });
  });

  it('never throws on arbitrary bytes, at any split, for any method', () => {
    const paths = CASES.map((c) => c.rpc.path);
    fc.assert(
      fc.property(
        fc.constantFrom(...paths),
        fc.uint8Array({ maxLength: 200 }),
        fc.array(fc.nat(200), { maxLength: 4 }),
        fc.boolean(),
        (path, bytes, cuts, framed) => {
          const body = framed ? encodeGrpcFrame(bytes) : bytes;
          const h = { ...head(V1.getTask!), path };
          const { facts, maxHeld } = classify(h, splitAt(body, cuts), { maxBytes: 64 });
          expect(facts.operation).toBe(grpcMethod(path)!.operation);
          expect(maxHeld).toBeLessThanOrEqual(64);
        },
      ),
    );
  });
});

describe('gRPC method paths', () => {
  it('maps every SDK rpc path, 1.0 and 0.3, and back', () => {
    for (const rpc of [...Object.values(V1), ...Object.values(V03)]) {
      const method = grpcMethod(rpc.path);
      expect(method, rpc.path).toBeDefined();
      expect(grpcPath(method!.operation, method!.version)).toBe(rpc.path);
    }
    expect(Object.keys(V1)).toHaveLength(11);
    expect(Object.keys(V03)).toHaveLength(10);
  });

  it('knows no path for operations a version lacks, nor unknown paths', () => {
    expect(grpcPath('ListTasks', '0.3')).toBeUndefined();
    expect(grpcPath('AgentCard', '1.0')).toBeUndefined();
    expect(grpcMethod('/a2a.v1.A2AService/ListTasks')).toBeUndefined();
    expect(grpcMethod('/lf.a2a.v1.A2AService/GetAgentCard')).toBeUndefined();
    expect(OPERATIONS.filter((op) => grpcPath(op, '1.0') !== undefined)).toHaveLength(11);
  });
});
