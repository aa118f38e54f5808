import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  getTaskRequest,
  sendMessageResponseOfTask,
  subscribeToTaskRequest,
  taskGeneration,
  taskSummary,
  withReturnImmediately,
} from '../../../src/a2a/grpc/rescue-wire.js';
import {
  message03,
  message1,
  pushConfig03,
  pushConfig1,
  requestBytes,
  responseBytes,
  task03,
  task1,
  V03,
  V1,
} from './sdk-wire.js';

const buf = (bytes: Uint8Array) => Buffer.from(bytes);

describe('withReturnImmediately', () => {
  it('1.0: sets return_immediately and keeps the configuration and the other fields (SDK decoder)', () => {
    const original = requestBytes(V1.sendMessage!, {
      tenant: 'acme',
      message: message1({ taskId: 't-1' }),
      configuration: {
        acceptedOutputModes: ['text/plain'],
        taskPushNotificationConfig: pushConfig1({ url: 'https://h.example/x' }),
        historyLength: 2,
        returnImmediately: false,
      },
      metadata: { k: 'v' },
    });
    const before = V1.sendMessage!.requestDeserialize(buf(original)) as Record<string, Record<string, unknown>>;
    const after = V1.sendMessage!.requestDeserialize(buf(withReturnImmediately(original, '1.0')!)) as typeof before;
    expect(after.configuration).toEqual({ ...before.configuration, returnImmediately: true });
    expect({ ...after, configuration: undefined }).toEqual({ ...before, configuration: undefined });
  });

  it('1.0: adds a configuration where there was none', () => {
    const original = requestBytes(V1.sendMessage!, { message: message1() });
    const after = V1.sendMessage!.requestDeserialize(buf(withReturnImmediately(original, '1.0')!)) as Record<
      string,
      unknown
    >;
    expect(after.configuration).toMatchObject({ returnImmediately: true });
  });

  it('0.3: blocking true becomes false, the push config stays', () => {
    const original = requestBytes(V03.sendMessage!, {
      request: message03(),
      configuration: {
        acceptedOutputModes: [],
        pushNotification: pushConfig03({ url: 'https://h/x' }),
        historyLength: 3,
        blocking: true,
      },
    });
    const after = V03.sendMessage!.requestDeserialize(buf(withReturnImmediately(original, '0.3')!)) as Record<
      string,
      Record<string, unknown>
    >;
    expect(after.configuration).toMatchObject({
      blocking: false,
      historyLength: 3,
      pushNotification: { url: 'https://h/x' },
    });
    expect(after.request).toMatchObject({ messageId: 'm-1' });
  });

  it('malformed input gives undefined, never a throw', () => {
    expect(withReturnImmediately(new Uint8Array([0x0a, 0x05, 1]), '1.0')).toBeUndefined();
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 64 }),
        fc.constantFrom('1.0', '0.3' as const),
        (b, v) => void withReturnImmediately(b, v),
      ),
    );
  });
});

describe('the draft 1.1 long-poll (wire-reference §7.4)', () => {
  it('GetTask current_generation is field 4, 1.0 only; a 1.0 SDK decoder skips it', () => {
    const bytes = getTaskRequest('t-1', '1.0', undefined, 5);
    expect(V1.getTask!.requestDeserialize(buf(bytes))).toEqual({ tenant: '', id: 't-1' });
    expect([...bytes.slice(-2)]).toEqual([4 << 3, 5]);
    expect(getTaskRequest('t-1', '0.3', undefined, 5)).toEqual(getTaskRequest('t-1', '0.3'));
  });

  it('reads Task.generation (field 7) of a GetTask Task and a SendMessageResponse task; none is 0 or absent', () => {
    const task = responseBytes(V1.getTask!, task1('t-1', 2));
    const withGen = (g: number) => Uint8Array.from([...task, 7 << 3, g]);
    expect(taskGeneration(withGen(3), 'GetTask')).toBe(3);
    expect(taskGeneration(sendMessageResponseOfTask(withGen(4), '1.0'), 'SendMessage')).toBe(4);
    expect(taskGeneration(task, 'GetTask')).toBeUndefined();
    expect(taskGeneration(withGen(0), 'GetTask')).toBeUndefined();
    expect(taskGeneration(Uint8Array.from([0xff]), 'GetTask')).toBeUndefined();
  });
});

describe('rescue requests and answers', () => {
  it('GetTask, SubscribeToTask requests decode in the SDK as meant', () => {
    expect(V1.getTask!.requestDeserialize(buf(getTaskRequest('t-1', '1.0', 0)))).toEqual({
      tenant: '',
      id: 't-1',
      historyLength: 0,
    });
    expect(V1.getTask!.requestDeserialize(buf(getTaskRequest('t-1', '1.0')))).toEqual({ tenant: '', id: 't-1' });
    expect(V03.getTask!.requestDeserialize(buf(getTaskRequest('t-1', '0.3', 5)))).toEqual({
      name: 'tasks/t-1',
      historyLength: 5,
    });
    expect(V1.subscribeToTask!.requestDeserialize(buf(subscribeToTaskRequest('t-1', '1.0')))).toEqual({
      tenant: '',
      id: 't-1',
    });
    expect(V03.taskSubscription!.requestDeserialize(buf(subscribeToTaskRequest('t-1', '0.3')))).toEqual({
      name: 'tasks/t-1',
    });
  });

  it('sendMessageResponseOfTask wraps the Task bytes unchanged', () => {
    for (const [version, rpc, getTask, task] of [
      ['1.0', V1.sendMessage!, V1.getTask!, task1('t-1', 3)],
      ['0.3', V03.sendMessage!, V03.getTask!, task03('t-1', 5)],
    ] as const) {
      const taskBytes = responseBytes(getTask, task);
      const answer = rpc.responseDeserialize(buf(sendMessageResponseOfTask(taskBytes, version))) as Record<
        string,
        unknown
      >;
      expect(answer.payload, version).toEqual({ $case: 'task', value: getTask.responseDeserialize(buf(taskBytes)) });
    }
  });

  it('taskSummary reads id, context and state; undefined for bytes that are no Task', () => {
    expect(taskSummary(responseBytes(V1.getTask!, task1('t-1', 6)), '1.0')).toEqual({
      id: 't-1',
      contextId: 'ctx-1',
      state: 'TASK_STATE_INPUT_REQUIRED',
    });
    expect(taskSummary(responseBytes(V03.getTask!, task03('t-2', 5)), '0.3')).toMatchObject({
      state: 'TASK_STATE_CANCELED',
    });
    expect(taskSummary(new Uint8Array([0x0a, 0x09]), '1.0')).toBeUndefined();
  });
});
