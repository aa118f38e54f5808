import { describe, expect, it } from 'vitest';
import {
  OPERATIONS,
  isStreamingOperation,
  operationForJsonRpcMethod,
  type Operation,
} from '../../src/a2a/operations.js';
import { isInterrupted, isTerminal, normaliseTaskState } from '../../src/a2a/task-state.js';

describe('JSON-RPC method table (wire-reference §1, §6.2)', () => {
  it.each([
    ['SendMessage', 'SendMessage', '1.0'],
    ['SendStreamingMessage', 'SendStreamingMessage', '1.0'],
    ['GetTask', 'GetTask', '1.0'],
    ['ListTasks', 'ListTasks', '1.0'],
    ['CancelTask', 'CancelTask', '1.0'],
    ['SubscribeToTask', 'SubscribeToTask', '1.0'],
    ['CreateTaskPushNotificationConfig', 'CreateTaskPushNotificationConfig', '1.0'],
    ['GetTaskPushNotificationConfig', 'GetTaskPushNotificationConfig', '1.0'],
    ['ListTaskPushNotificationConfigs', 'ListTaskPushNotificationConfigs', '1.0'],
    ['DeleteTaskPushNotificationConfig', 'DeleteTaskPushNotificationConfig', '1.0'],
    ['GetExtendedAgentCard', 'GetExtendedAgentCard', '1.0'],
    ['message/send', 'SendMessage', '0.3'],
    ['message/stream', 'SendStreamingMessage', '0.3'],
    ['tasks/get', 'GetTask', '0.3'],
    ['tasks/cancel', 'CancelTask', '0.3'],
    ['tasks/resubscribe', 'SubscribeToTask', '0.3'],
    ['tasks/pushNotificationConfig/set', 'CreateTaskPushNotificationConfig', '0.3'],
    ['tasks/pushNotificationConfig/get', 'GetTaskPushNotificationConfig', '0.3'],
    ['tasks/pushNotificationConfig/list', 'ListTaskPushNotificationConfigs', '0.3'],
    ['tasks/pushNotificationConfig/delete', 'DeleteTaskPushNotificationConfig', '0.3'],
    ['agent/getAuthenticatedExtendedCard', 'GetExtendedAgentCard', '0.3'],
  ])('%s → %s (%s)', (method, operation, version) => {
    expect(operationForJsonRpcMethod(method)).toEqual({ operation, version });
  });

  it('knows nothing else', () => {
    for (const unknown of [
      'sendMessage',
      'tasks/list',
      'NoSuchMethod',
      '',
      'message/send ',
      'constructor',
      '__proto__',
    ]) {
      expect(operationForJsonRpcMethod(unknown)).toBeUndefined();
    }
  });
});

describe('streaming operations', () => {
  it('are exactly SendStreamingMessage and SubscribeToTask', () => {
    const streaming = OPERATIONS.filter((op: Operation) => isStreamingOperation(op));
    expect(streaming).toEqual(['SendStreamingMessage', 'SubscribeToTask']);
  });
});

describe('task states (wire-reference §2.2, §6.3, §6.4)', () => {
  it.each([
    ['TASK_STATE_COMPLETED', 'TASK_STATE_COMPLETED'],
    ['completed', 'TASK_STATE_COMPLETED'],
    ['input-required', 'TASK_STATE_INPUT_REQUIRED'],
    ['auth-required', 'TASK_STATE_AUTH_REQUIRED'],
    ['TASK_STATE_CANCELLED', 'TASK_STATE_CANCELED'],
    ['canceled', 'TASK_STATE_CANCELED'],
    ['unknown', 'TASK_STATE_UNSPECIFIED'],
    ['submitted', 'TASK_STATE_SUBMITTED'],
    ['rejected', 'TASK_STATE_REJECTED'],
    [6, 'TASK_STATE_INPUT_REQUIRED'],
    [0, 'TASK_STATE_UNSPECIFIED'],
  ] as const)('%s → %s', (wire, state) => {
    expect(normaliseTaskState(wire)).toBe(state);
  });

  it.each([['done'], [''], [9], [-1], [1.5], [null], [{}], ['TASK_STATE_'], ['x'.repeat(100)]])(
    '%j is no state',
    (wire) => {
      expect(normaliseTaskState(wire)).toBeUndefined();
    },
  );

  it('classifies terminal and interrupted states, AUTH_REQUIRED per version', () => {
    const terminal = [
      'TASK_STATE_COMPLETED',
      'TASK_STATE_FAILED',
      'TASK_STATE_CANCELED',
      'TASK_STATE_REJECTED',
    ] as const;
    for (const s of terminal) expect([isTerminal(s), isInterrupted(s)]).toEqual([true, false]);
    for (const s of ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_UNSPECIFIED'] as const) {
      expect([isTerminal(s), isInterrupted(s)]).toEqual([false, false]);
    }
    expect(isInterrupted('TASK_STATE_INPUT_REQUIRED', '0.3')).toBe(true);
    expect(isInterrupted('TASK_STATE_AUTH_REQUIRED', '1.0')).toBe(true);
    expect(isInterrupted('TASK_STATE_AUTH_REQUIRED', '0.3')).toBe(false);
    expect(isTerminal(undefined)).toBe(false);
  });
});
