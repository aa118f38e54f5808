/**
 * The decoders against every recorded exchange: the hand-written facts of
 * capture-expectations.ts, then the very same facts whatever the chunking (split at every byte
 * offset, random chunkings) and whichever JSON path reads the body (JSON.parse or the scanner).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createRequestDecoder, type RequestFacts } from '../../src/a2a/request.js';
import { createResponseDecoder, type ResponseFacts } from '../../src/a2a/response.js';
import { EXPECTED, type Expected } from './capture-expectations.js';
import { listCaptures, loadCapture, type Capture } from './captures.js';
import { splitAt } from '../support/chunks.js';

const MAX_BYTES = 256 * 1024;
const REST_BASE_PATHS = ['/a2a/rest'];

interface DecodeOptions {
  parseBufferBytes?: number;
  clock?: () => number;
}

function decodeRequest(c: Capture, chunks: Uint8Array[], opts: DecodeOptions = {}): RequestFacts {
  const { method, path, query, headers } = c.request;
  const decoder = createRequestDecoder(
    { method, path, query, headers },
    { maxBytes: MAX_BYTES, restBasePaths: REST_BASE_PATHS, parseBufferBytes: opts.parseBufferBytes },
  );
  for (const chunk of chunks) decoder.push(chunk);
  return decoder.end();
}

function decodeResponse(c: Capture, req: RequestFacts, chunks: Uint8Array[], opts: DecodeOptions = {}): ResponseFacts {
  const res = c.response;
  if (res === undefined) throw new Error('no response');
  const decoder = createResponseDecoder(
    req,
    { status: res.status, contentType: res.headers['content-type'] },
    { maxBytes: MAX_BYTES, parseBufferBytes: opts.parseBufferBytes, clock: opts.clock },
  );
  for (const chunk of chunks) decoder.push(chunk);
  return decoder.end({ aborted: res.aborted });
}

function checkRequest(facts: RequestFacts, want: Expected['req']): void {
  expect({
    op: facts.operation,
    binding: facts.binding,
    version: facts.version,
    signal: facts.versionSignal,
    blocking: facts.blocking,
    taskId: facts.taskId !== undefined,
    historyLength: facts.historyLength,
    tenant: facts.tenant,
    pushUrl: facts.pushUrl !== undefined,
    malformed: facts.malformed,
    partial: facts.partial,
  }).toEqual({
    blocking: undefined,
    taskId: false,
    historyLength: undefined,
    tenant: undefined,
    pushUrl: false,
    malformed: false,
    partial: false,
    ...want,
    ...{ idPresent: undefined },
  });
  if (want.idPresent !== undefined) expect(facts.jsonrpcIdPresent).toBe(want.idPresent);
  else if (facts.binding === 'jsonrpc' && !facts.malformed && facts.operation !== 'unknown')
    expect(facts.jsonrpcIdPresent).toBe(true);
}

function checkResponse(facts: ResponseFacts, want: NonNullable<Expected['res']>): void {
  expect({
    tag: facts.tag,
    state: facts.state,
    taskId: facts.taskId !== undefined,
    artifacts: facts.artifactCount,
    history: facts.historyCount,
  }).toEqual({
    state: undefined,
    taskId: false,
    artifacts: undefined,
    history: undefined,
    ...pick(want, ['tag', 'state', 'taskId', 'artifacts', 'history']),
  });
  if (want.error === undefined) expect(facts.error).toBeUndefined();
  else expect(facts.error).toMatchObject(want.error);
  if (want.events === undefined) {
    expect(facts.stream).toBeUndefined();
    return;
  }
  const zero = { task: 0, message: 0, statusUpdate: 0, artifactUpdate: 0, error: 0, other: 0 };
  expect(facts.stream?.events).toEqual({ ...zero, ...want.events });
  expect(facts.stream?.closure).toBe(want.closure);
  if (want.finalFlag !== undefined) expect(facts.stream?.finalFlag).toBe(want.finalFlag);
}

function pick<T extends object, K extends keyof T>(value: T, keys: K[]): Partial<T> {
  return Object.fromEntries(
    keys.filter((k) => value[k] !== undefined).map((k) => [k, value[k]]),
  ) as unknown as Partial<T>;
}

const names = listCaptures().filter((name) => !name.includes('--push-'));

it('every capture has hand-written expectations, and every expectation a capture', () => {
  expect(Object.keys(EXPECTED).sort()).toEqual(names);
});

describe.each(names)('%s', (name) => {
  const capture = loadCapture(name);
  const want = EXPECTED[name] as Expected;
  const req = decodeRequest(capture, [capture.request.body]);
  const res = capture.response === undefined ? undefined : decodeResponse(capture, req, [capture.response.body]);

  it('decodes to the expected facts and findings', () => {
    checkRequest(req, want.req);
    if (want.res === undefined) expect(res).toBeUndefined();
    else checkResponse(res as ResponseFacts, want.res);
    const rules = [...req.findings, ...(res?.findings ?? [])].map((f) => f.rule).sort();
    expect(rules).toEqual([...(want.findings ?? [])].sort());
  });

  it('gives the same facts with the bodies split at every byte offset', () => {
    const body = capture.request.body;
    for (let cut = 0; cut <= body.length; cut++) expect(decodeRequest(capture, splitAt(body, [cut]))).toEqual(req);
    if (capture.response === undefined) return;
    const resBody = capture.response.body;
    for (let cut = 0; cut <= resBody.length; cut++) {
      expect(decodeResponse(capture, req, splitAt(resBody, [cut]))).toEqual(res);
    }
  });

  it('gives the same facts for random chunkings (property)', () => {
    const resBody = capture.response?.body ?? new Uint8Array(0);
    fc.assert(
      fc.property(
        fc.array(fc.nat({ max: Math.max(0, capture.request.body.length) }), { maxLength: 6 }),
        fc.array(fc.nat({ max: resBody.length }), { maxLength: 12 }),
        (reqCuts, resCuts) => {
          const again = decodeRequest(capture, splitAt(capture.request.body, reqCuts));
          expect(again).toEqual(req);
          if (capture.response !== undefined)
            expect(decodeResponse(capture, req, splitAt(resBody, resCuts))).toEqual(res);
        },
      ),
      { numRuns: 25 },
    );
  });

  it('gives the same facts when bodies go through the streaming scanner instead of JSON.parse', () => {
    const viaScan = { parseBufferBytes: 0 };
    const body = capture.request.body;
    // Only a body read with JSON.parse hands its parsed document on (for the timeout rescue).
    const { document: _parsed, ...reqFacts } = req;
    expect(decodeRequest(capture, splitAt(body, [body.length >> 1]), viaScan)).toEqual(reqFacts);
    if (capture.response !== undefined) {
      const resBody = capture.response.body;
      expect(decodeResponse(capture, req, splitAt(resBody, [7, resBody.length >> 1]), viaScan)).toEqual(res);
    }
  });

  if (capture.reads !== undefined && capture.response !== undefined) {
    it('times the first event with the recorded TCP reads', () => {
      let now = 0;
      const reads = capture.reads ?? [];
      const chunks: Uint8Array[] = [];
      let at = 0;
      for (const read of reads) {
        chunks.push((capture.response as NonNullable<Capture['response']>).body.subarray(at, at + read.bytes));
        at += read.bytes;
      }
      const res2 = createResponseDecoder(
        req,
        { status: capture.response?.status ?? 0, contentType: capture.response?.headers['content-type'] },
        { maxBytes: MAX_BYTES, clock: () => now },
      );
      reads.forEach((read, i) => {
        now = read.ms;
        res2.push(chunks[i] as Uint8Array);
      });
      const facts = res2.end({ aborted: capture.response?.aborted });
      // Each recorded read is one SSE event (captures README).
      expect(facts.stream?.firstEventMs).toBe(reads[0]?.ms);
      expect(facts.stream?.eventCount).toBe(reads.length);
    });
  }
});
