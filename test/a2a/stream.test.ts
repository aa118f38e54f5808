import { describe, expect, it } from 'vitest';
import type { RequestContext } from '../../src/a2a/checks.js';
import { createResponseDecoder, responseHoldBytes, type ResponseFacts } from '../../src/a2a/response.js';

const enc = new TextEncoder();

const RPC10: RequestContext = {
  binding: 'jsonrpc',
  version: '1.0',
  operation: 'SendStreamingMessage',
  jsonrpcId: 'r1',
  jsonrpcIdPresent: true,
  taskId: undefined,
  blocking: undefined,
  historyLength: undefined,
};
const REST10: RequestContext = { ...RPC10, binding: 'rest', jsonrpcId: undefined, jsonrpcIdPresent: undefined };
const RPC03: RequestContext = { ...RPC10, version: '0.3' };

// 1.0 StreamResponse payloads (wire-reference §2.3)
const task = (state: string, id = 't1') => ({ task: { id, contextId: 'c1', status: { state } } });
const status = (state: string, id = 't1') => ({ statusUpdate: { taskId: id, contextId: 'c1', status: { state } } });
const artifact = (id = 't1') => ({
  artifactUpdate: { taskId: id, contextId: 'c1', artifact: { artifactId: 'a', parts: [{ text: 'x' }] } },
});
const message = { message: { messageId: 'm', contextId: 'c1', role: 'ROLE_AGENT', parts: [{ text: 'x' }] } };

const rpcFrame = (result: unknown, id: unknown = 'r1') => `data: ${JSON.stringify({ jsonrpc: '2.0', id, result })}\n\n`;
const restFrame = (payload: unknown) => `data: ${JSON.stringify(payload)}\n\n`;

function stream(req: RequestContext, body: string, opts: { aborted?: boolean; maxBytes?: number } = {}): ResponseFacts {
  const decoder = createResponseDecoder(
    req,
    { status: 200, contentType: 'text/event-stream' },
    { maxBytes: opts.maxBytes ?? 64 * 1024 },
  );
  decoder.push(enc.encode(body));
  return decoder.end({ aborted: opts.aborted });
}

const rules = (facts: ResponseFacts) => facts.findings.map((f) => f.rule).sort();

describe('stream order (§3.1.2, wire-reference §5.3)', () => {
  it('a well-formed task stream has no findings and closes at its terminal state', () => {
    const facts = stream(
      RPC10,
      [task('TASK_STATE_SUBMITTED'), status('TASK_STATE_WORKING'), artifact(), status('TASK_STATE_COMPLETED')]
        .map((p) => rpcFrame(p))
        .join(''),
    );
    expect(facts.findings).toEqual([]);
    expect(facts.stream).toMatchObject({
      tag: 'task',
      eventCount: 4,
      closure: 'terminal',
      finalState: 'TASK_STATE_COMPLETED',
      taskId: 't1',
    });
  });

  it('flags a first event that is neither task nor message', () => {
    const facts = stream(RPC10, rpcFrame(status('TASK_STATE_WORKING')) + rpcFrame(status('TASK_STATE_COMPLETED')));
    expect(rules(facts)).toEqual(['a2a.stream-first-event']);
    expect(facts.tag).toBe('other');
  });

  it('flags a message stream with more than one event', () => {
    const facts = stream(RPC10, rpcFrame(message) + rpcFrame(message));
    expect(rules(facts)).toEqual(['a2a.stream-message-extra-events']);
    expect(facts.stream).toMatchObject({ tag: 'message', closure: 'message' });
  });

  it('flags a message after a task', () => {
    const facts = stream(
      RPC10,
      rpcFrame(task('TASK_STATE_WORKING')) + rpcFrame(message) + rpcFrame(status('TASK_STATE_COMPLETED')),
    );
    expect(rules(facts)).toEqual(['a2a.stream-message-after-task']);
  });

  it('flags events after a terminal state, but not a final task snapshot in that state (§11.7)', () => {
    const after = stream(
      RPC10,
      [task('TASK_STATE_WORKING'), status('TASK_STATE_FAILED'), artifact(), status('TASK_STATE_WORKING')]
        .map((p) => rpcFrame(p))
        .join(''),
    );
    expect(after.findings).toEqual([
      { rule: 'a2a.stream-event-after-terminal', count: 2, detail: 'artifactUpdate after TASK_STATE_FAILED' },
    ]);
    const snapshot = stream(
      RPC10,
      [task('TASK_STATE_WORKING'), status('TASK_STATE_COMPLETED'), task('TASK_STATE_COMPLETED')]
        .map((p) => rpcFrame(p))
        .join(''),
    );
    expect(snapshot.findings).toEqual([]);
  });

  it('flags events for another task', () => {
    const facts = stream(
      RPC10,
      rpcFrame(task('TASK_STATE_WORKING')) + rpcFrame(artifact('t2')) + rpcFrame(status('TASK_STATE_COMPLETED')),
    );
    expect(rules(facts)).toEqual(['a2a.task-id-mismatch']);
    const subscribe = stream(
      { ...RPC10, operation: 'SubscribeToTask', taskId: 'asked' },
      rpcFrame(task('TASK_STATE_WORKING')),
    );
    expect(rules(subscribe)).toContain('a2a.task-id-mismatch');
  });

  it('flags event ids that do not echo the request id (§9.4.2)', () => {
    const facts = stream(
      RPC10,
      rpcFrame(task('TASK_STATE_WORKING')) + rpcFrame(status('TASK_STATE_COMPLETED'), 'other'),
    );
    expect(rules(facts)).toEqual(['a2a.jsonrpc-id-mismatch']);
  });

  it('flags 0.3 events in a 1.0 stream', () => {
    const v03 = { kind: 'status-update', taskId: 't1', contextId: 'c1', status: { state: 'completed' }, final: true };
    const facts = stream(RPC10, rpcFrame(task('TASK_STATE_WORKING')) + rpcFrame(v03));
    expect(rules(facts)).toEqual(['a2a.version-shape-mismatch']);
  });
});

describe('0.3 streams (wire-reference §6.3, §6.6)', () => {
  const kindTask = { kind: 'task', id: 't1', contextId: 'c1', status: { state: 'submitted' } };
  const kindStatus = (state: string, final: boolean) => ({
    kind: 'status-update',
    taskId: 't1',
    contextId: 'c1',
    status: { state },
    final,
  });

  it('honours final: true and flags events after it', () => {
    const ok = stream(
      RPC03,
      rpcFrame(kindTask) + rpcFrame(kindStatus('working', false)) + rpcFrame(kindStatus('completed', true)),
    );
    expect(ok.findings).toEqual([]);
    expect(ok.stream).toMatchObject({ finalFlag: true, closure: 'terminal' });
    const late = stream(
      RPC03,
      rpcFrame(kindTask) + rpcFrame(kindStatus('working', true)) + rpcFrame(kindStatus('working', false)),
    );
    expect(rules(late)).toEqual(['a2a.stream-event-after-terminal']);
  });

  it('treats AUTH_REQUIRED as interrupted in 1.0 only', () => {
    expect(stream(RPC10, rpcFrame(task('TASK_STATE_AUTH_REQUIRED'))).stream?.closure).toBe('interrupted');
    const v03 = stream(RPC03, rpcFrame(kindTask) + rpcFrame(kindStatus('auth-required', false)));
    expect(v03.stream?.closure).toBe('open');
    expect(rules(v03)).toEqual(['a2a.stream-ended-active']);
  });
});

describe('stream endings', () => {
  it('flags an agent closing while the task is still working, not a client abort', () => {
    const body = rpcFrame(task('TASK_STATE_SUBMITTED')) + rpcFrame(status('TASK_STATE_WORKING'));
    expect(rules(stream(RPC10, body))).toEqual(['a2a.stream-ended-active']);
    const aborted = stream(RPC10, body, { aborted: true });
    expect(aborted.findings).toEqual([]);
    expect(aborted.stream?.closure).toBe('aborted');
  });

  it('reports a stream cut in the middle of an event', () => {
    const facts = stream(
      RPC10,
      rpcFrame(task('TASK_STATE_WORKING')) + 'data: {"jsonrpc":"2.0","id":"r1","result":{"statusUp',
    );
    expect(facts.stream).toMatchObject({ cutMidEvent: true, eventCount: 1, closure: 'open' });
    expect(rules(facts)).toEqual(['a2a.stream-cut-mid-event', 'a2a.stream-ended-active']);
  });

  it('an empty stream is empty', () => {
    expect(stream(RPC10, '').stream).toMatchObject({ closure: 'empty', eventCount: 0, tag: 'other' });
  });
});

describe('errors and keepalives in streams (wire-reference §1.1, §1.2, §7.1 #7)', () => {
  it('counts JSON-RPC error events, REST error events and `event: error`', () => {
    const rpcErr = stream(
      RPC10,
      rpcFrame(task('TASK_STATE_WORKING')) +
        `data: ${JSON.stringify({ jsonrpc: '2.0', id: 'r1', error: { code: -32603, message: 'boom' } })}\n\n`,
    );
    expect(rpcErr.stream).toMatchObject({
      closure: 'error',
      events: { task: 1, error: 1 },
      error: { code: -32603, message: 'boom' },
    });
    const restErr = stream(
      REST10,
      restFrame(task('TASK_STATE_WORKING')) +
        restFrame({ error: { code: 500, status: 'INTERNAL', message: 'x', details: [{ reason: 'INTERNAL' }] } }),
    );
    expect(restErr.stream?.error).toMatchObject({ status: 'INTERNAL', reason: 'INTERNAL' });
    const typed = stream(REST10, restFrame(task('TASK_STATE_WORKING')) + 'event: error\ndata: {"detail":"gone"}\n\n');
    expect(typed.stream?.events.error).toBe(1);
    expect(typed.tag).toBe('task');
  });

  it('counts keepalive comments and ignores them otherwise', () => {
    const facts = stream(
      REST10,
      ': ping\n\n' +
        restFrame(task('TASK_STATE_WORKING')) +
        ': ping\n\n: ping\n\n' +
        restFrame(status('TASK_STATE_COMPLETED')),
    );
    expect(facts.stream).toMatchObject({ keepalives: 3, eventCount: 2, closure: 'terminal' });
    expect(facts.findings).toEqual([]);
  });

  it('an event that is not JSON is counted as other with a finding', () => {
    const facts = stream(
      REST10,
      restFrame(task('TASK_STATE_WORKING')) + 'data: not json\n\n' + restFrame(status('TASK_STATE_COMPLETED')),
    );
    expect(facts.stream?.events.other).toBe(1);
    expect(facts.malformed).toBe(true);
    expect(rules(facts)).toContain('a2a.invalid-json');
  });
});

describe('bounded memory on huge streams', () => {
  it('skips an event bigger than the cap with partial, and still follows the stream', () => {
    const decoder = createResponseDecoder(
      REST10,
      { status: 200, contentType: 'text/event-stream' },
      { maxBytes: 64 * 1024 },
    );
    decoder.push(
      enc.encode(
        restFrame(task('TASK_STATE_WORKING')) + 'data: {"artifactUpdate":{"taskId":"t1","artifact":{"parts":[{"raw":"',
      ),
    );
    const block = new Uint8Array(1 << 20).fill(0x43);
    let maxHeld = 0;
    for (let i = 0; i < 100; i++) {
      decoder.push(block);
      maxHeld = Math.max(maxHeld, decoder.heldBytes);
    }
    decoder.push(enc.encode('"}]}}}\n\n' + restFrame(status('TASK_STATE_COMPLETED'))));
    const facts = decoder.end();
    expect(maxHeld).toBeLessThanOrEqual(64 * 1024 + 4 * 1024 + 64 * 1024);
    expect(facts).toMatchObject({ partial: true, tag: 'task', state: 'TASK_STATE_COMPLETED' });
    expect(facts.stream).toMatchObject({ oversizeEvents: 1, eventCount: 2, closure: 'terminal' });
    expect(rules(facts)).toEqual(['gateway.inspect-partial']);
  });

  it('holds no more than maxEventBytes of an unterminated event when the budget lowers it below maxBytes', () => {
    const head = { status: 200, contentType: 'text/event-stream' };
    const decoder = createResponseDecoder(REST10, head, { maxBytes: 1 << 20, maxEventBytes: 16 * 1024 });
    decoder.push(enc.encode(restFrame(task('TASK_STATE_WORKING')) + 'data: {"artifactUpdate":{"pad":"'));
    const block = new Uint8Array(4 * 1024).fill(0x43);
    let maxHeld = 0;
    for (let i = 0; i < 256; i++) {
      decoder.push(block); // 1 MiB in all, never terminated
      maxHeld = Math.max(maxHeld, decoder.heldBytes);
    }
    const facts = decoder.end();
    expect(maxHeld).toBeLessThanOrEqual(16 * 1024 + 4 * 1024 + 4 * 1024); // cap + line slack + one chunk
    expect(facts).toMatchObject({ partial: true, tag: 'task', taskId: 't1' });
    expect(facts.stream).toMatchObject({ oversizeEvents: 1, cutMidEvent: true });
  });

  it('tells the inspection budget what each kind of decoder holds at most', () => {
    const opts = { maxBytes: 1 << 20 };
    expect(responseHoldBytes({ status: 200, contentType: 'text/event-stream' }, opts)).toBe(1 << 20);
    expect(responseHoldBytes({ status: 200, contentType: 'text/event-stream' }, { ...opts, maxEventBytes: 5000 })).toBe(
      5000,
    );
    expect(responseHoldBytes({ status: 200, contentType: 'application/json' }, opts)).toBe(16 * 1024); // parse buffer
    expect(responseHoldBytes({ status: 200, contentType: 'application/json' }, { maxBytes: 2048 })).toBe(2048);
    expect(responseHoldBytes({ status: 200, contentType: 'text/html' }, opts)).toBe(0);
    expect(responseHoldBytes({ status: 200, contentType: 'application/json', contentEncoding: 'gzip' }, opts)).toBe(0);
  });

  it('measures the time to the first event with the given clock', () => {
    let now = 1000;
    const decoder = createResponseDecoder(
      RPC10,
      { status: 200, contentType: 'text/event-stream' },
      { maxBytes: 1024, clock: () => now },
    );
    now = 1005;
    decoder.push(enc.encode(': ping\n\n'));
    now = 1042;
    decoder.push(enc.encode(rpcFrame(task('TASK_STATE_WORKING'))));
    now = 2000;
    decoder.push(enc.encode(rpcFrame(status('TASK_STATE_COMPLETED'))));
    expect(decoder.end().stream?.firstEventMs).toBe(42);
  });
});
