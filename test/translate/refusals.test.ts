/**
 * What the translation refuses (`Untranslatable`, src/translate/shapes.ts) rather than pass on
 * altered, and what it passes on untouched: operations 0.3 lacks (unsupported: UnsupportedOperation,
 * -32004), tenants, several authentication schemes, unknown part kinds, enum values a version does
 * not have; and members of a later draft (issue 28: unknown members pass through where the object
 * around them is translated, an unknown StreamResponse member is refused).
 */
import { describe, expect, it } from 'vitest';
import { loadCapture } from '../a2a/captures.js';
import { rpcAnswer, rpcRequest } from '../../src/translate/jsonrpc.js';
import { restAnswer, restPath, restRequest } from '../../src/translate/rest.js';
import { Untranslatable, type Obj } from '../../src/translate/shapes.js';

/** The refusal `f` throws (fails the test when it throws nothing or something else). */
function refusal(f: () => unknown): Untranslatable {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(Untranslatable);
    return e as Untranslatable;
  }
  throw new Error('expected an Untranslatable refusal, nothing was thrown');
}

const rpc = (method: string, params: Obj): Obj => ({ jsonrpc: '2.0', id: 1, method, params });
const text = (t: string) => ({ messageId: 'm1', role: 'ROLE_USER', parts: [{ text: t }] });

describe('refusals', () => {
  it('ListTasks to 0.3: unsupported, on both bindings, call and answer', () => {
    const calls = [
      () => rpcRequest(rpc('ListTasks', { pageSize: 2 }), 'ListTasks', '0.3'),
      () =>
        rpcAnswer(
          { jsonrpc: '2.0', id: 1, result: { tasks: [], nextPageToken: '', pageSize: 2, totalSize: 0 } },
          'ListTasks',
          '0.3',
        ),
      () => restPath('GET', '/a2a/rest/tasks?pageSize=2', '0.3'),
      () => restAnswer({ tasks: [], nextPageToken: '', pageSize: 2, totalSize: 0 }, 'ListTasks', '0.3', 200),
    ];
    for (const call of calls) expect(refusal(call).unsupported).toBe(true);
  });

  it('a 1.0 request naming a tenant, to 0.3 (0.3 has no tenants); an empty tenant is no tenant', () => {
    const send = rpc('SendMessage', { tenant: 'acme', message: text('hi') });
    const e = refusal(() => rpcRequest(send, 'SendMessage', '0.3'));
    expect(e.unsupported).toBe(false);
    expect(e.where).toBe('params.tenant');
    refusal(() => rpcRequest(rpc('GetTask', { tenant: 'acme', id: 't1' }), 'GetTask', '0.3'));
    refusal(() => restRequest({ tenant: 'acme', message: text('hi') }, 'SendMessage', '0.3', undefined));
    refusal(() =>
      rpcRequest(
        rpc('CreateTaskPushNotificationConfig', { tenant: 'acme', taskId: 't1', url: 'https://hook' }),
        'CreateTaskPushNotificationConfig',
        '0.3',
      ),
    );
    expect(rpcRequest(rpc('GetTask', { tenant: '', id: 't1' }), 'GetTask', '0.3')['params']).toEqual({ id: 't1' });
  });

  it('a 0.3 push config with two authentication schemes, to 1.0 (1.0 takes one); one scheme goes', () => {
    const config = (schemes: string[]) => ({ url: 'https://hook', authentication: { schemes, credentials: 'c' } });
    const set = (schemes: string[]) =>
      rpc('tasks/pushNotificationConfig/set', { taskId: 't1', pushNotificationConfig: config(schemes) });
    const e = refusal(() => rpcRequest(set(['Bearer', 'Basic']), 'CreateTaskPushNotificationConfig', '1.0'));
    expect(e.where).toBe('params.pushNotificationConfig.authentication.schemes');
    // In SendMessage's configuration too.
    refusal(() =>
      rpcRequest(
        rpc('message/send', {
          message: { kind: 'message', messageId: 'm', role: 'user', parts: [] },
          configuration: { pushNotificationConfig: config(['Bearer', 'Basic']) },
        }),
        'SendMessage',
        '1.0',
      ),
    );
    expect(rpcRequest(set(['Bearer']), 'CreateTaskPushNotificationConfig', '1.0')['params']).toEqual({
      taskId: 't1',
      url: 'https://hook',
      authentication: { scheme: 'Bearer', credentials: 'c' },
    });
  });

  it('unknown part kinds, both ways and both dialects', () => {
    const msg03 = (part: Obj) =>
      rpc('message/send', { message: { kind: 'message', messageId: 'm', role: 'user', parts: [part] } });
    expect(refusal(() => rpcRequest(msg03({ kind: 'video', uri: 'x' }), 'SendMessage', '1.0')).where).toBe(
      'params.message.parts[0].kind',
    );
    refusal(() => rpcRequest(msg03({ kind: 'file', file: { name: 'x' } }), 'SendMessage', '1.0'));
    // 1.0: a part with none of text, raw, url, data.
    const msg1 = (part: Obj) => rpc('SendMessage', { message: { messageId: 'm', role: 'ROLE_USER', parts: [part] } });
    refusal(() => rpcRequest(msg1({ video: 'x', mediaType: 'video/mp4' }), 'SendMessage', '0.3'));
    refusal(() =>
      restRequest(
        { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ video: 'x' }] } },
        'SendMessage',
        '0.3',
        undefined,
      ),
    );
    // 0.3 HTTP+JSON: none of text, file, data; a file with neither uri nor bytes.
    refusal(() =>
      restRequest(
        { message: { messageId: 'm', role: 'ROLE_USER', content: [{ video: 'x' }] } },
        'SendMessage',
        '1.0',
        undefined,
      ),
    );
    refusal(() =>
      restRequest(
        { message: { messageId: 'm', role: 'ROLE_USER', content: [{ file: { mimeType: 'a/b' } }] } },
        'SendMessage',
        '1.0',
        undefined,
      ),
    );
  });

  it('a 1.0 data part holding no object, to 0.3 HTTP+JSON (the 0.3 proto DataPart holds a Struct)', () => {
    const e = refusal(() =>
      restRequest(
        { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ data: [1, 2] }] } },
        'SendMessage',
        '0.3',
        undefined,
      ),
    );
    expect(e.where).toBe('message.parts[0].data');
  });

  it('enum values the version does not have: the recorded 1.0 request with role "user", an unknown state', () => {
    const recorded = loadCapture('v1--edge-rpc-enum-lowercase-role.http');
    const doc = JSON.parse(new TextDecoder().decode(recorded.request.body)) as Obj;
    expect(refusal(() => rpcRequest(doc, 'SendMessage', '0.3')).where).toBe('params.message.role');
    const task = { id: 't', contextId: 'c', status: { state: 'TASK_STATE_PAUSED' } };
    expect(refusal(() => rpcAnswer({ jsonrpc: '2.0', id: 1, result: task }, 'GetTask', '0.3')).where).toBe(
      'result.status.state',
    );
    refusal(() =>
      rpcAnswer(
        { jsonrpc: '2.0', id: 1, result: { ...task, kind: 'task', status: { state: 'paused' } } },
        'GetTask',
        '1.0',
      ),
    );
    refusal(() => restAnswer({ ...task, status: { state: 'working' } }, 'GetTask', '0.3', 200));
  });

  it('a later page of push configs, to 0.3 (0.3 lists them in one page)', () => {
    refusal(() =>
      rpcRequest(
        rpc('ListTaskPushNotificationConfigs', { taskId: 't', pageToken: 'p2' }),
        'ListTaskPushNotificationConfigs',
        '0.3',
      ),
    );
  });
});

describe('members of a later draft', () => {
  it('pass through unchanged where the object around them is translated (Task, TaskStatus, Message, Part)', () => {
    const task = {
      id: 't',
      contextId: 'c',
      generation: 3,
      status: {
        state: 'TASK_STATE_WORKING',
        generation: 1,
        message: { ...text('x'), priority: 'high', parts: [{ text: 'x', lang: 'en' }] },
      },
    };
    const down = rpcAnswer({ jsonrpc: '2.0', id: 1, result: task }, 'GetTask', '0.3')['result'] as Obj;
    expect(down['generation']).toBe(3);
    expect(down['status']).toMatchObject({
      state: 'working',
      generation: 1,
      message: { priority: 'high', parts: [{ kind: 'text', lang: 'en' }] },
    });
    expect(rpcAnswer({ jsonrpc: '2.0', id: 1, result: down }, 'GetTask', '1.0')['result']).toEqual(task);
    // HTTP+JSON too.
    const rest03 = restAnswer(task, 'GetTask', '0.3', 200) as Obj;
    expect(rest03['generation']).toBe(3);
    expect(restAnswer(rest03, 'GetTask', '1.0', 200)).toEqual(task);
  });

  it('an unknown StreamResponse member (messageUpdate) is refused: 0.3 has no object to carry it', () => {
    const event = { messageUpdate: { taskId: 't', contextId: 'c', delta: 'x' } };
    const e = refusal(() => rpcAnswer({ jsonrpc: '2.0', id: 1, result: event }, 'SendStreamingMessage', '0.3'));
    expect(e.unsupported).toBe(false);
    refusal(() => restAnswer(event, 'SendStreamingMessage', '0.3', 200));
    // And an unknown 0.3 event kind going up.
    refusal(() =>
      rpcAnswer(
        { jsonrpc: '2.0', id: 1, result: { kind: 'message-update', taskId: 't' } },
        'SendStreamingMessage',
        '1.0',
      ),
    );
  });

  it('an unknown member beside a known StreamResponse member: kept on HTTP+JSON, gone on JSON-RPC (0.3 sends the bare event)', () => {
    const event = { task: { id: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } }, sequence: 4 };
    expect((restAnswer(event, 'SendStreamingMessage', '0.3', 200) as Obj)['sequence']).toBe(4);
    const down = rpcAnswer({ jsonrpc: '2.0', id: 1, result: event }, 'SendStreamingMessage', '0.3')['result'] as Obj;
    expect(down).toEqual({ kind: 'task', id: 't', contextId: 'c', status: { state: 'working' } });
  });
});
