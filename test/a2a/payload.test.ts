import { describe, expect, it } from 'vitest';
import { readPayload } from '../../src/a2a/payload.js';

describe('readPayload: the member key that names the payload', () => {
  const task = { id: 't1', status: { state: 'TASK_STATE_WORKING' } };
  const message = { messageId: 'm1', parts: [] };
  const update = { taskId: 't1', status: { state: 'TASK_STATE_WORKING' } };
  const cases: Array<[string, unknown, string | undefined, boolean]> = [
    ['task alone', { task }, 'task', false],
    ['statusUpdate alone', { statusUpdate: update }, 'statusUpdate', false],
    ['artifactUpdate alone', { artifactUpdate: { taskId: 't1' } }, 'artifactUpdate', false],
    ['0.3 proto msg', { msg: message }, 'message', false],
    ['task and message: the first in order, ambiguous', { message, task }, 'task', true],
    ['message and msg: ambiguous', { msg: message, message }, 'message', true],
    ['a member that is no object does not count', { message: 'hi', statusUpdate: update }, 'statusUpdate', false],
    ['null members do not count', { task: null, artifactUpdate: null }, undefined, false],
    ['no member: the 0.3 kind decides', { kind: 'status-update', taskId: 't1' }, 'statusUpdate', false],
  ];
  it.each(cases)('%s', (_name, result, kind, ambiguous) => {
    const payload = readPayload({ jsonrpc: '2.0', id: 1, result }, 'result', 'jsonrpc');
    expect(payload.kind).toBe(kind);
    expect(payload.ambiguous).toBe(ambiguous);
  });

  it('reads a msg member as 0.3 shape', () => {
    expect(readPayload({ msg: message }, '', 'rest').shape).toBe('0.3');
  });
});
