import { describe, expect, it } from 'vitest';
import type { RequestContext } from '../../src/a2a/checks.js';
import { createResponseDecoder, type ResponseFacts } from '../../src/a2a/response.js';
import { PARSE_BUFFER_BYTES } from '../../src/codec/json-body.js';

const enc = new TextEncoder();

const RPC10: RequestContext = {
  binding: 'jsonrpc',
  version: '1.0',
  operation: 'SendMessage',
  jsonrpcId: 7,
  jsonrpcIdPresent: true,
  taskId: undefined,
  blocking: true,
  historyLength: undefined,
};
const REST10: RequestContext = { ...RPC10, binding: 'rest', jsonrpcId: undefined, jsonrpcIdPresent: undefined };
const RPC03: RequestContext = { ...RPC10, version: '0.3' };

function respond(req: RequestContext, body: unknown, status = 200, contentType = 'application/json'): ResponseFacts {
  const decoder = createResponseDecoder(req, { status, contentType }, { maxBytes: 64 * 1024 });
  decoder.push(typeof body === 'string' ? enc.encode(body) : enc.encode(JSON.stringify(body)));
  return decoder.end();
}

const rules = (facts: ResponseFacts) => facts.findings.map((f) => f.rule).sort();
const task10 = (state: string, more: object = {}) => ({ id: 't1', contextId: 'c1', status: { state }, ...more });
const msg10 = { messageId: 'm1', contextId: 'c1', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] };

describe('SendMessage result shape (§9.4.1, §11.4)', () => {
  it('flags a result with both task and message, and one with neither', () => {
    const both = respond(RPC10, {
      jsonrpc: '2.0',
      id: 7,
      result: { task: task10('TASK_STATE_COMPLETED'), message: msg10 },
    });
    expect(rules(both)).toEqual(['a2a.send-result-shape']);
    expect(both.findings[0]?.detail).toBe('both task and message');
    const neither = respond(RPC10, { jsonrpc: '2.0', id: 7, result: {} });
    expect(neither.tag).toBe('other');
    expect(rules(neither)).toEqual(['a2a.send-result-shape']);
    const restBoth = respond(REST10, { task: task10('TASK_STATE_COMPLETED'), message: msg10 });
    expect(rules(restBoth)).toEqual(['a2a.send-result-shape']);
  });

  it('accepts the 0.3 bare, kind-tagged result for a 0.3 request', () => {
    const facts = respond(RPC03, {
      jsonrpc: '2.0',
      id: 7,
      result: { kind: 'message', messageId: 'm', parts: [{ kind: 'text', text: 'x' }] },
    });
    expect(facts).toMatchObject({ tag: 'message', messageId: 'm', shape: '0.3', findings: [] });
  });

  it('flags a bare 1.0 task (no wrapper) as neither task nor message', () => {
    expect(rules(respond(RPC10, { jsonrpc: '2.0', id: 7, result: task10('TASK_STATE_COMPLETED') }))).toEqual([
      'a2a.send-result-shape',
    ]);
  });
});

describe('blocking SendMessage (§3.2.2)', () => {
  it('flags a blocking send answered with a working task, not with a terminal or interrupted one', () => {
    const answer = (state: string, req = RPC10) =>
      rules(respond(req, { jsonrpc: '2.0', id: 7, result: { task: task10(state) } }));
    expect(answer('TASK_STATE_WORKING')).toEqual(['a2a.blocking-send-not-final']);
    expect(answer('TASK_STATE_SUBMITTED')).toEqual(['a2a.blocking-send-not-final']);
    expect(answer('TASK_STATE_COMPLETED')).toEqual([]);
    expect(answer('TASK_STATE_INPUT_REQUIRED')).toEqual([]);
    expect(answer('TASK_STATE_AUTH_REQUIRED')).toEqual([]);
    expect(answer('TASK_STATE_WORKING', { ...RPC10, blocking: false })).toEqual([]);
    expect(answer('TASK_STATE_WORKING', { ...RPC10, blocking: undefined })).toEqual([]);
  });
});

describe('historyLength (§3.2.4; 0.3: 0 = unlimited)', () => {
  const get = (req: RequestContext, history: number) =>
    rules(
      respond(
        { ...req, operation: 'GetTask' },
        { jsonrpc: '2.0', id: 7, result: task10('TASK_STATE_COMPLETED', { history: Array(history).fill(msg10) }) },
      ),
    );
  it('1.0: 0 means none, N means at most N', () => {
    expect(get({ ...RPC10, historyLength: 0 }, 1)).toEqual(['a2a.history-length-exceeded']);
    expect(get({ ...RPC10, historyLength: 0 }, 0)).toEqual([]);
    expect(get({ ...RPC10, historyLength: 2 }, 3)).toEqual(['a2a.history-length-exceeded']);
    expect(get({ ...RPC10, historyLength: 2 }, 2)).toEqual([]);
    expect(get({ ...RPC10, historyLength: undefined }, 9)).toEqual([]);
  });
  it('0.3: 0 means unlimited', () => {
    const kindTask = (history: number) =>
      rules(
        respond(
          { ...RPC03, operation: 'GetTask', historyLength: 0 },
          {
            jsonrpc: '2.0',
            id: 7,
            result: { kind: 'task', id: 't', status: { state: 'completed' }, history: Array(history).fill({}) },
          },
        ),
      );
    expect(kindTask(5)).toEqual([]);
  });
});

describe('version shape (§3.6.2)', () => {
  it('flags a 1.0 request answered in 0.3 shape, and the reverse', () => {
    const v03Answer = { jsonrpc: '2.0', id: 7, result: { kind: 'task', id: 't', status: { state: 'completed' } } };
    expect(rules(respond({ ...RPC10, operation: 'GetTask' }, v03Answer))).toEqual(['a2a.version-shape-mismatch']);
    const v10Answer = { jsonrpc: '2.0', id: 7, result: { task: task10('TASK_STATE_COMPLETED') } };
    expect(rules(respond(RPC03, v10Answer))).toEqual(['a2a.version-shape-mismatch']);
    const rest03Answer = { task: task10('TASK_STATE_CANCELLED') };
    expect(rules(respond({ ...REST10, operation: 'SendMessage' }, rest03Answer))).toEqual([
      'a2a.version-shape-mismatch',
    ]);
  });

  it('does not guess from a REST task whose state names both versions share', () => {
    expect(respond({ ...REST10, operation: 'GetTask' }, task10('TASK_STATE_WORKING')).shape).toBeUndefined();
  });
});

describe('JSON-RPC id (JSON-RPC 2.0 §5)', () => {
  it('flags a different id, including a number answered as a string', () => {
    const answer = (id: unknown, result: unknown = { message: msg10 }) =>
      rules(respond(RPC10, { jsonrpc: '2.0', id, result }));
    expect(answer(8)).toEqual(['a2a.jsonrpc-id-mismatch']);
    expect(answer('7')).toEqual(['a2a.jsonrpc-id-mismatch']);
    expect(answer(null)).toEqual(['a2a.jsonrpc-id-mismatch']);
    expect(answer(7)).toEqual([]);
  });

  it('allows id null on an error, and no check for notifications', () => {
    expect(rules(respond(RPC10, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'x' } }))).toEqual([]);
    expect(
      rules(respond({ ...RPC10, jsonrpcIdPresent: false }, { jsonrpc: '2.0', id: 99, result: { message: msg10 } })),
    ).toEqual([]);
  });
});

describe('task id (§3.4.3)', () => {
  it('flags an answer about another task than the one asked for', () => {
    const facts = respond(
      { ...RPC10, operation: 'GetTask', taskId: 'other' },
      { jsonrpc: '2.0', id: 7, result: task10('TASK_STATE_COMPLETED') },
    );
    expect(rules(facts)).toEqual(['a2a.task-id-mismatch']);
  });
});

describe('errors are classified by code or reason, not HTTP status (wire-reference §4)', () => {
  it('reads JSON-RPC errors with ErrorInfo, REST Google errors, 0.3 REST and problem+json bodies', () => {
    expect(
      respond(RPC10, {
        jsonrpc: '2.0',
        id: 7,
        error: { code: -32001, message: 'nf', data: [{ '@type': 'x', reason: 'TASK_NOT_FOUND' }] },
      }).error,
    ).toEqual({
      code: -32001,
      reason: 'TASK_NOT_FOUND',
      status: undefined,
      httpStatus: 200,
      message: 'nf',
    });
    const rest = respond(
      REST10,
      {
        error: { code: 400, status: 'FAILED_PRECONDITION', message: 'm', details: [{ reason: 'TASK_NOT_CANCELABLE' }] },
      },
      400,
    );
    expect(rest).toMatchObject({
      tag: 'error',
      error: { code: undefined, reason: 'TASK_NOT_CANCELABLE', status: 'FAILED_PRECONDITION', httpStatus: 400 },
    });
    expect(respond(REST10, { code: -32001, message: 'nf' }, 404).error).toMatchObject({
      code: -32001,
      httpStatus: 404,
    });
    const problem = respond(
      REST10,
      { type: 'about:blank', title: 'Bad', detail: 'version' },
      400,
      'application/problem+json',
    );
    expect(problem).toMatchObject({ tag: 'error', error: { httpStatus: 400, message: 'version' } });
  });

  it('an HTML error page is an error by status, not read', () => {
    expect(respond(REST10, '<html>nope</html>', 502, 'text/html')).toMatchObject({
      tag: 'error',
      bodyKind: 'other',
      error: { httpStatus: 502 },
      findings: [],
    });
    expect(respond(REST10, '<html>ok</html>', 200, 'text/html')).toMatchObject({ tag: 'other', bodyKind: 'other' });
  });
});

describe('hostile response bodies', () => {
  it('invalid JSON is tagged other with a finding, never a throw', () => {
    const facts = respond(RPC10, '{"jsonrpc":"2.0","id":7,"result":{"task":{"id":"t1",');
    expect(facts).toMatchObject({ tag: 'other', malformed: true });
    expect(rules(facts)).toContain('a2a.invalid-json');
  });

  it('a 100 MB task: tag and ids found, memory bounded, counts partial', () => {
    const decoder = createResponseDecoder(
      { ...RPC10, operation: 'GetTask' },
      { status: 200, contentType: 'application/json' },
      { maxBytes: 256 * 1024 },
    );
    decoder.push(
      enc.encode(
        '{"jsonrpc":"2.0","id":7,"result":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"},"artifacts":[{"artifactId":"a","parts":[{"raw":"',
      ),
    );
    const block = new Uint8Array(1 << 20).fill(0x42);
    let maxHeld = 0;
    for (let i = 0; i < 100; i++) {
      decoder.push(block);
      maxHeld = Math.max(maxHeld, decoder.heldBytes);
    }
    decoder.push(enc.encode('"}]}],"history":[]}}'));
    const facts = decoder.end();
    expect(maxHeld).toBeLessThanOrEqual(PARSE_BUFFER_BYTES);
    expect(facts).toMatchObject({
      tag: 'task',
      taskId: 't1',
      contextId: 'c1',
      state: 'TASK_STATE_COMPLETED',
      partial: true,
      artifactCount: undefined,
      historyCount: undefined,
    });
    expect(rules(facts)).toEqual(['gateway.inspect-partial']);
  });

  it('a body cut by the transport is partial, not malformed', () => {
    const decoder = createResponseDecoder(RPC10, { status: 200, contentType: 'application/json' }, { maxBytes: 1024 });
    decoder.push(enc.encode('{"jsonrpc":"2.0","id":7,"result":{"message":{"messageId":"m'));
    expect(decoder.end({ aborted: true })).toMatchObject({
      aborted: true,
      partial: true,
      malformed: false,
      findings: [],
    });
  });
});

describe('compressed response bodies', () => {
  it('are not read and not misreported as invalid JSON', () => {
    const decoder = createResponseDecoder(
      RPC10,
      { status: 200, contentType: 'application/json', contentEncoding: 'br' },
      { maxBytes: 1024 },
    );
    decoder.push(new Uint8Array([0x0b, 0x80, 0x80]));
    expect(decoder.end()).toMatchObject({
      tag: 'other',
      partial: true,
      malformed: false,
      findings: [{ rule: 'gateway.inspect-partial', detail: 'response body is br' }],
    });
    const sse = createResponseDecoder(
      RPC10,
      { status: 503, contentType: 'text/event-stream', contentEncoding: 'gzip' },
      { maxBytes: 1024 },
    );
    sse.push(new Uint8Array([1, 2, 3]));
    expect(sse.end()).toMatchObject({ tag: 'error', error: { httpStatus: 503 }, partial: true });
  });
});
