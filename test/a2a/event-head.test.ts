/**
 * The in-place head reader of later stream events (src/a2a/event-head.ts) against the full parse
 * (JSON.parse + readPayload), on every recorded stream and on events changed at random: whatever
 * it accepts, it must read as the full parse does; on the recorded streams it must accept every
 * later update, or it would save nothing.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { RequestContext } from '../../src/a2a/checks.js';
import {
  createEventHeadReader,
  headExpectation,
  MAX_HEAD_BYTES,
  type EventHeadReader,
} from '../../src/a2a/event-head.js';
import { readError, readPayload, type Payload } from '../../src/a2a/payload.js';
import { createRequestDecoder, type RequestFacts } from '../../src/a2a/request.js';
import { createResponseDecoder, type ResponseFacts } from '../../src/a2a/response.js';
import { createSseDecoder } from '../../src/codec/sse.js';
import { listCaptures, loadCapture, type Capture } from './captures.js';

const enc = new TextEncoder();
const MAX_BYTES = 1024 * 1024;

function requestOf(c: Capture): RequestFacts {
  const { method, path, query, headers, body } = c.request;
  const decoder = createRequestDecoder(
    { method, path, query, headers },
    { maxBytes: MAX_BYTES, restBasePaths: ['/a2a/rest'] },
  );
  decoder.push(body);
  return decoder.end();
}

function readerFor(req: RequestContext, taskId: string): EventHeadReader | undefined {
  return createEventHeadReader(headExpectation(req, taskId));
}

/** What the full read makes of one event's data (src/a2a/stream.ts `classify`). */
function fullRead(req: RequestContext, data: string): { payload: Payload | undefined; idMatches: boolean } {
  let value: { jsonrpc?: unknown; id?: unknown };
  try {
    value = JSON.parse(data) as typeof value;
  } catch {
    return { payload: undefined, idMatches: false };
  }
  const binding = req.binding === 'jsonrpc' || value?.jsonrpc !== undefined ? 'jsonrpc' : 'rest';
  if (readError(value, 200, binding) !== undefined) return { payload: undefined, idMatches: false };
  const idMatches = binding !== 'jsonrpc' || req.jsonrpcIdPresent !== true || value.id === req.jsonrpcId;
  return { payload: readPayload(value, binding === 'jsonrpc' ? 'result' : '', binding), idMatches };
}

/** A head read agrees with the full read: same facts; a shape only where the full read has that one. */
function expectAgrees(head: Payload, full: ReturnType<typeof fullRead>, taskId: string): void {
  expect(full.idMatches).toBe(true);
  const p = full.payload as Payload;
  expect({ kind: head.kind, taskId: head.taskId, state: head.state, ambiguous: p.ambiguous }).toEqual({
    kind: p.kind,
    taskId: p.taskId,
    state: p.state,
    ambiguous: false,
  });
  expect(head.taskId).toBe(taskId);
  if (head.final !== undefined) expect(head.final).toBe(p.final);
  if (head.shape !== undefined) expect(head.shape).toBe(p.shape);
}

interface Stream {
  name: string;
  req: RequestFacts;
  body: Uint8Array;
  events: string[];
}

function recordedStreams(): Stream[] {
  const out: Stream[] = [];
  for (const name of listCaptures()) {
    const c = loadCapture(name);
    if (c.response === undefined || !String(c.response.headers['content-type']).startsWith('text/event-stream'))
      continue;
    const events: string[] = [];
    const sse = createSseDecoder({ maxEventBytes: MAX_BYTES, onEvent: (e) => events.push(e.data) });
    sse.push(c.response.body);
    sse.end();
    out.push({ name, req: requestOf(c), body: c.response.body, events });
  }
  return out;
}

const STREAMS = recordedStreams();

/** The task a stream names first (by the full read), and its later events. */
function split(s: Stream): { taskId: string; later: string[] } | undefined {
  const at = s.events.findIndex((d) => fullRead(s.req, d).payload?.taskId !== undefined);
  if (at < 0) return undefined;
  return { taskId: fullRead(s.req, s.events[at] as string).payload?.taskId as string, later: s.events.slice(at + 1) };
}

describe('stream event heads, on the recorded streams', () => {
  it('every later status and artifact update of the task is read in place, as the full parse reads it', () => {
    let updates = 0;
    for (const s of STREAMS) {
      const named = split(s);
      if (named === undefined) continue;
      const reader = readerFor(s.req, named.taskId) as EventHeadReader;
      for (const data of named.later) {
        const full = fullRead(s.req, data);
        const bytes = enc.encode(data);
        const head = reader.read(bytes, 0, bytes.length);
        const isUpdate = full.payload?.kind === 'statusUpdate' || full.payload?.kind === 'artifactUpdate';
        if (!isUpdate || full.payload?.taskId !== named.taskId) {
          expect(head, `${s.name}: ${data.slice(0, 80)}`).toBeUndefined();
          continue;
        }
        expect(head, `${s.name}: ${data.slice(0, 80)}`).toBeDefined();
        expectAgrees(head as Payload, full, named.taskId);
        updates++;
      }
    }
    expect(updates).toBeGreaterThan(40);
  });

  it('the stream facts and findings are those of the full parse, in one chunk and byte by byte', () => {
    for (const s of STREAMS) {
      const chunks = [s.body];
      const bytes = Array.from(s.body, (b) => Uint8Array.of(b));
      expect(decode(s.req, chunks, 'head'), s.name).toEqual(decode(s.req, chunks, 'full'));
      expect(decode(s.req, bytes, 'head'), s.name).toEqual(decode(s.req, bytes, 'full'));
    }
  });
});

function decode(req: RequestContext, chunks: Uint8Array[], streamEvents: 'head' | 'full'): ResponseFacts {
  const decoder = createResponseDecoder(
    req,
    { status: 200, contentType: 'text/event-stream' },
    { maxBytes: MAX_BYTES, streamEvents },
  );
  for (const chunk of chunks) decoder.push(chunk);
  return decoder.end();
}

// --- events changed at random ---------------------------------------------------------------

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Keys of every object in a random order (JSON.parse keeps the last of duplicate keys: none here). */
function shuffled(v: Json, rand: () => number): Json {
  if (Array.isArray(v)) return v.map((x) => shuffled(x, rand));
  if (v === null || typeof v !== 'object') return v;
  const entries = Object.entries(v).map(([k, x]) => [k, shuffled(x, rand)] as const);
  entries.sort(() => rand() - 0.5);
  return Object.fromEntries(entries);
}

/** Changes after which the head reader must leave the event to the full parse. */
const LEFT_TO_FULL_PARSE = [
  'other-task',
  'escaped-task',
  'odd-state',
  'numeric-state',
  'other-rpc-id',
  'rpc-id-last',
  'error-first',
];
const change = fc.constantFrom(
  'none',
  'reorder',
  'spaces',
  'extra-member',
  'unknown-key',
  'trailing-space',
  ...LEFT_TO_FULL_PARSE,
);

function changed(data: string, how: string, rand: () => number, taskId: string): string {
  const v = JSON.parse(data) as { [key: string]: Json };
  const swap = (from: string, to: string) => data.split(from).join(to);
  switch (how) {
    case 'reorder':
      return JSON.stringify(shuffled(v, rand));
    case 'spaces':
      return JSON.stringify(v, null, 1 + Math.floor(rand() * 3));
    case 'other-task':
      return swap(`"${taskId}"`, `"${taskId.slice(0, -1)}x"`);
    case 'escaped-task':
      return swap(`"${taskId}"`, `"\\u00${taskId.charCodeAt(0).toString(16)}${taskId.slice(1)}"`);
    case 'odd-state':
      return data.replace(
        /"state":"([A-Za-z_-]+)"/,
        (_m, s: string) => `"state":"${s.toLowerCase().replace(/^task_state_/, 'Task_State_')}"`,
      );
    case 'numeric-state':
      return data.replace(/"state":"[A-Za-z_-]+"/, '"state":2');
    case 'other-rpc-id':
      return 'id' in v ? JSON.stringify({ ...v, id: 'elsewhere' }) : data;
    case 'rpc-id-last': {
      if (!('id' in v)) return data;
      const { id, ...rest } = v;
      return JSON.stringify({ ...rest, id });
    }
    case 'error-first':
      return JSON.stringify({ error: { code: -32603, message: 'x' }, ...v });
    case 'extra-member': {
      const at = 'result' in v ? (v.result as { [key: string]: Json }) : v;
      at.message = { messageId: 'm', role: 'ROLE_AGENT', parts: [] };
      return JSON.stringify(v);
    }
    case 'unknown-key':
      return data.replace(/"taskId":/, '"x-note":{"a":[1,"}",{"b":"\\""}]},"taskId":');
    case 'trailing-space':
      return `${data} \t`;
    default:
      return data;
  }
}

describe('stream event heads, on changed events', () => {
  const cases = STREAMS.flatMap((s) => {
    const named = split(s);
    return named === undefined ? [] : named.later.map((data) => ({ s, taskId: named.taskId, data }));
  });

  it('what the head reader accepts, it reads as the full parse does; what it cannot, it leaves to it', () => {
    fc.assert(
      fc.property(fc.nat(cases.length - 1), change, fc.integer(), (i, how, seed) => {
        const { s, taskId, data } = cases[i] as (typeof cases)[number];
        let x = seed;
        const rand = () => (x = (x * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
        const text = changed(data, how, rand, taskId);
        const bytes = enc.encode(text);
        const head = (readerFor(s.req, taskId) as EventHeadReader).read(bytes, 0, bytes.length);
        const full = fullRead(s.req, text);
        if (text !== data && LEFT_TO_FULL_PARSE.includes(how)) expect(head, text).toBeUndefined();
        // A second member key past the head is what a head read does not see (tested below).
        if (head !== undefined && how !== 'extra-member') expectAgrees(head, full, taskId);
      }),
      { numRuns: 4000 },
    );
  });

  it('the stream facts are those of the full parse, whatever the events were changed to', () => {
    fc.assert(
      fc.property(fc.nat(STREAMS.length - 1), fc.array(change, { maxLength: 12 }), fc.integer(), (i, hows, seed) => {
        const s = STREAMS[i] as Stream;
        const named = split(s);
        if (named === undefined) return;
        let x = seed;
        const rand = () => (x = (x * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
        // Shape findings are what a head read leaves out (src/a2a/event-head.ts): keep the shapes.
        const keep = hows.filter((h) => h !== 'extra-member');
        const events = s.events.map((d, n) =>
          n === 0 || keep.length === 0 ? d : changed(d, keep[n % keep.length] as string, rand, named.taskId),
        );
        const body = [enc.encode(events.map((d) => `data: ${d}\n\n`).join(''))];
        expect(decode(s.req, body, 'head')).toEqual(decode(s.req, body, 'full'));
      }),
      { numRuns: 600 },
    );
  });
});

describe('the head a stream repeats', () => {
  const TASK = '44613eb1-1bae-47be-9266-fc61120b565f';
  const event = (state: string, seq: number) =>
    `{"jsonrpc":"2.0","id":7,"result":{"statusUpdate":{"taskId":"${TASK}","contextId":"c","metadata":{"seq":${seq}},"status":{"state":"${state}"}}}}`;

  it('is kept as a copy, not as a view of the chunk it came in', () => {
    const reader = createEventHeadReader({ taskId: TASK, jsonrpcId: '7', wholePayload: false }) as EventHeadReader;
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const text = Buffer.from(event('TASK_STATE_WORKING', 1));
    text.copy(chunk, 100);
    expect(reader.read(chunk, 100, 100 + text.length)?.state).toBe('TASK_STATE_WORKING');
    expect(reader.heldBytes).toBeGreaterThan(0);
    expect(reader.heldBytes).toBeLessThan(text.length);
    chunk.fill(0); // the chunk is gone; the next event still reads from the remembered head
    const next = Buffer.from(event('TASK_STATE_COMPLETED', 2));
    expect(reader.read(next, 0, next.length)?.state).toBe('TASK_STATE_COMPLETED');
  });

  it('is not remembered past MAX_HEAD_BYTES (a huge context id), and events still read', () => {
    const reader = createEventHeadReader({ taskId: TASK, jsonrpcId: '7', wholePayload: false }) as EventHeadReader;
    const huge = (state: string) =>
      enc.encode(event(state, 1).replace('"contextId":"c"', `"contextId":"${'c'.repeat(MAX_HEAD_BYTES)}"`));
    expect(reader.read(huge('TASK_STATE_WORKING'), 0, huge('TASK_STATE_WORKING').length)?.state).toBe(
      'TASK_STATE_WORKING',
    );
    expect(reader.heldBytes).toBe(0);
    const short = enc.encode(event('TASK_STATE_WORKING', 1));
    reader.read(short, 0, short.length);
    expect(reader.heldBytes).toBeGreaterThan(0);
    expect(reader.heldBytes).toBeLessThanOrEqual(MAX_HEAD_BYTES);
  });

  it('is read again when an event starts differently', () => {
    const reader = createEventHeadReader({ taskId: TASK, jsonrpcId: '7', wholePayload: false }) as EventHeadReader;
    const a = enc.encode(event('TASK_STATE_WORKING', 1));
    expect(reader.read(a, 0, a.length)?.state).toBe('TASK_STATE_WORKING');
    const otherId = enc.encode(event('TASK_STATE_WORKING', 2).replace('"id":7', '"id":8'));
    expect(reader.read(otherId, 0, otherId.length)).toBeUndefined();
    const otherTask = enc.encode(event('TASK_STATE_WORKING', 3).replace(TASK, `${TASK.slice(0, -1)}0`));
    expect(reader.read(otherTask, 0, otherTask.length)).toBeUndefined();
  });
});

describe('what a head read does not see (src/a2a/event-head.ts)', () => {
  const req: RequestContext = {
    binding: 'jsonrpc',
    version: '1.0',
    operation: 'SendStreamingMessage',
    jsonrpcId: 1,
    jsonrpcIdPresent: true,
    taskId: undefined,
    blocking: undefined,
    historyLength: undefined,
  };
  const first =
    '{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_SUBMITTED"}}}}';
  const body = (later: string) => [enc.encode(`data: ${first}\n\ndata: ${later}\n\n`)];
  const rules = (f: ResponseFacts) => f.findings.map((x) => x.rule);

  it('invalid JSON past the head of an event that still ends in `}`', () => {
    const later =
      '{"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"t1","status":{"state":"TASK_STATE_WORKING"},"x":nope}}}';
    expect(rules(decode(req, body(later), 'full'))).toContain('a2a.invalid-json');
    expect(rules(decode(req, body(later), 'head'))).not.toContain('a2a.invalid-json');
    expect(decode(req, body(later), 'head').stream?.finalState).toBe('TASK_STATE_WORKING');
  });

  it('but not an event cut short', () => {
    const later =
      '{"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"t1","status":{"state":"TASK_STATE_WORKING"';
    expect(rules(decode(req, body(later), 'head'))).toContain('a2a.invalid-json');
  });

  it('0.3 shape evidence past the head', () => {
    const later =
      '{"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"t1","status":{"state":"TASK_STATE_WORKING","message":{"kind":"message"}}}}}';
    expect(rules(decode(req, body(later), 'full'))).toContain('a2a.version-shape-mismatch');
    expect(rules(decode(req, body(later), 'head'))).not.toContain('a2a.version-shape-mismatch');
  });

  it('an error beside a result, after it', () => {
    const later =
      '{"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"t1","status":{"state":"TASK_STATE_WORKING"}}},"error":{"code":1}}';
    expect(decode(req, body(later), 'full').stream?.events.error).toBe(1);
    expect(decode(req, body(later), 'head').stream?.events.error).toBe(0);
  });

  it('a second member key past the head (an ambiguous payload)', () => {
    const later =
      '{"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"t1","status":{"state":"TASK_STATE_WORKING"}},"message":{"messageId":"m"}}}';
    expect(rules(decode(req, body(later), 'full'))).toContain('a2a.stream-message-after-task');
    expect(decode(req, body(later), 'head').stream?.events.statusUpdate).toBe(1);
  });

  it('but 0.3 evidence within the head is reported', () => {
    const later = '{"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"t1","status":{"state":"working"}}}}';
    expect(rules(decode(req, body(later), 'head'))).toContain('a2a.version-shape-mismatch');
  });
});
