/**
 * The spec's error table, one source: src/a2a/error-table.ts must say what wire-reference §4.1
 * (the v1.0.1 table, §5.4) says, row by row; and every A2A error the gateway answers itself
 * (src/errors/a2a-error.ts) must answer, over a real socket on every binding, with its row —
 * JSON-RPC code, REST status + google.rpc body + ErrorInfo, gRPC status + details — for 1.0
 * callers, and in the 0.3 shapes for 0.3 callers.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect, createServer as createH2Server, type Http2Server } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2A_ERROR_DOMAIN, A2A_ERROR_TABLE, type A2AErrorName, type A2AErrorRow } from '../../src/a2a/error-table.js';
import { A2AError, sendA2AError, taskNotFound, taskReplicaGone } from '../../src/errors/a2a-error.js';
import { grpcFailureOf, sendGrpcFailure } from '../../src/errors/grpc-answer.js';
import { decodeGrpcStatus, GRPC_CODE_NAMES } from '../../src/a2a/grpc/status.js';
import type { ErrorContext } from '../../src/errors/json-answer.js';

interface DocRow {
  jsonrpc: number;
  grpc: string;
  http: number;
  reason: string;
}

/** The rows of wire-reference §4.1's table: `| \`TaskNotFoundError\` | -32001 | \`NOT_FOUND\` | 404 | \`TASK_NOT_FOUND\` | – |`. */
function docTable(): Map<string, DocRow> {
  const doc = readFileSync(new URL('../../docs/wire-reference.md', import.meta.url), 'utf8');
  const section = doc.slice(doc.indexOf('### 4.1 Codes'), doc.indexOf('### 4.2 Shapes'));
  const rows = new Map<string, DocRow>();
  for (const line of section.split('\n')) {
    const m = /^\| `(\w+Error)` \| (-\d+) \| `(\w+)` \| (\d{3}) \| `(\w+)` \|/.exec(line);
    if (m) rows.set(m[1]!, { jsonrpc: Number(m[2]), grpc: m[3]!, http: Number(m[4]), reason: m[5]! });
  }
  return rows;
}

/** The standard JSON-RPC codes wire-reference §4.1 lists: "-32700 `JSONParseError`, …". */
function docStandardCodes(): Map<string, number> {
  const doc = readFileSync(new URL('../../docs/wire-reference.md', import.meta.url), 'utf8');
  const line = doc.split('\n').find((l) => l.startsWith('Standard JSON-RPC:'))!;
  const next = doc.split('\n')[doc.split('\n').indexOf(line) + 1]!;
  return new Map([...`${line} ${next}`.matchAll(/(-\d+) `(\w+Error)`/g)].map((m) => [m[2]!, Number(m[1])]));
}

/** The REST mapping of the standard errors wire-reference §4.1 gives: "InvalidParams/InvalidRequest → 400 `INVALID_ARGUMENT`, …". */
function docStandardMapping(): Map<string, { http: number; grpc: string }> {
  const doc = readFileSync(new URL('../../docs/wire-reference.md', import.meta.url), 'utf8');
  const start = doc.indexOf('a2a-python maps non-A2A errors on REST:');
  const text = doc.slice(start, doc.indexOf('\n\n', start)).replace(/\s+/g, ' ');
  const out = new Map<string, { http: number; grpc: string }>();
  for (const m of text.matchAll(/([\w/]+) → (\d{3}) `(\w+)`/g)) {
    for (const name of m[1]!.split('/')) out.set(`${name}Error`, { http: Number(m[2]), grpc: m[3]! });
  }
  return out;
}

describe('the error table in code is the v1.0.1 table of wire-reference §4.1', () => {
  const doc = docTable();

  it('has every A2A row of the doc, with the same code, statuses and reason', () => {
    expect(doc.size).toBe(9);
    for (const [name, row] of doc) {
      const code: A2AErrorRow = A2A_ERROR_TABLE[name as A2AErrorName];
      expect(code, name).toBeDefined();
      expect({ jsonrpc: code.jsonrpc, grpc: code.grpc, http: code.http, reason: code.reason }, name).toEqual(row);
    }
  });

  it('has the standard JSON-RPC codes the doc lists, and no row the doc does not name', () => {
    const standard = docStandardCodes();
    expect(standard.size).toBe(5);
    for (const [name, code] of standard) expect(A2A_ERROR_TABLE[name as A2AErrorName]?.jsonrpc, name).toBe(code);
    const mapping = docStandardMapping();
    expect(mapping.size).toBe(4);
    for (const [name, { http, grpc }] of mapping) {
      const row = A2A_ERROR_TABLE[name as A2AErrorName];
      expect({ http: row.http, grpc: row.grpc }, name).toEqual({ http, grpc });
    }
    expect(Object.keys(A2A_ERROR_TABLE).sort()).toEqual([...doc.keys(), ...standard.keys()].sort());
  });
});

/** Every A2A error the gateway answers itself, and the spec error it answers as. */
const GATEWAY_A2A_ERRORS: readonly [A2AError, A2AErrorName, string][] = [
  [taskNotFound('t-1'), 'TaskNotFoundError', A2A_ERROR_DOMAIN],
  [taskReplicaGone('t-2', 'echo', 'http://r1', 'removed'), 'TaskNotFoundError', 'a2a-gateway'],
  [new A2AError('InvalidParams', 'push URL refused', { rule: 'private' }), 'InvalidParamsError', 'a2a-gateway'],
];

/** The HTTP status an a2a-js 0.3 REST agent answers a code with (LEGACY_CODE_TO_HTTP_STATUS, @a2a-js/sdk 1.3.0). */
const SDK_03_REST_STATUS: Record<number, number> = { [-32001]: 404, [-32602]: 400 };

describe('every A2A error the gateway answers, over a real socket, on every binding', () => {
  let http: Server;
  let h2: Http2Server;
  let current: { err: A2AError; ctx: ErrorContext } | undefined;
  let currentGrpc: A2AError | undefined;

  beforeAll(async () => {
    http = createServer((req, res) => {
      req.resume();
      sendA2AError(res, current!.err, current!.ctx);
    });
    h2 = createH2Server((req, res) => {
      req.resume();
      sendGrpcFailure(res, grpcFailureOf(currentGrpc!, req.url));
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    await new Promise<void>((r) => h2.listen(0, '127.0.0.1', r));
  });
  afterAll(async () => {
    await new Promise((r) => http.close(r));
    await new Promise((r) => h2.close(r));
  });

  async function answer(err: A2AError, ctx: ErrorContext) {
    current = { err, ctx };
    const { port } = http.address() as AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      body: '{}',
      signal: AbortSignal.timeout(5000),
    });
    return {
      status: res.status,
      type: res.headers.get('content-type'),
      body: (await res.json()) as Record<string, any>,
    };
  }

  async function grpcTrailers(err: A2AError, path: string) {
    currentGrpc = err;
    const { port } = h2.address() as AddressInfo;
    const session = connect(`http://127.0.0.1:${port}`);
    try {
      return await new Promise<Record<string, string>>((resolve, reject) => {
        const stream = session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/grpc' });
        const timer = setTimeout(() => reject(new Error('no gRPC answer')), 5000);
        let headers: Record<string, string> = {};
        stream.on('response', (h) => (headers = h as Record<string, string>));
        stream.on('trailers', (t) => (headers = { ...headers, ...(t as Record<string, string>) }));
        stream.on('close', () => (clearTimeout(timer), resolve(headers)));
        stream.on('error', reject);
        stream.resume();
        stream.end();
      });
    } finally {
      session.close();
    }
  }

  for (const [err, name, domain] of GATEWAY_A2A_ERRORS) {
    const row = A2A_ERROR_TABLE[name];
    const info = { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: err.reason, domain };

    it(`${err.kind} (${name}): JSON-RPC 1.0 → code ${row.jsonrpc}, data [ErrorInfo]`, async () => {
      const got = await answer(err, { binding: 'jsonrpc', jsonrpcId: 7, version: '1.0' });
      expect(got.status).toBe(200);
      expect(got.body.id).toBe(7);
      expect(got.body.error.code).toBe(row.jsonrpc);
      expect(got.body.error.data).toEqual([expect.objectContaining(info)]);
    });

    it(`${err.kind} (${name}): JSON-RPC 0.3 → code ${row.jsonrpc}, no data`, async () => {
      const got = await answer(err, { binding: 'jsonrpc', jsonrpcId: 'x', version: '0.3' });
      expect(got.status).toBe(200);
      expect(got.body.error).toEqual({ code: row.jsonrpc, message: err.message });
    });

    it(`${err.kind} (${name}): REST 1.0 → HTTP ${row.http}, status ${row.grpc}, ErrorInfo`, async () => {
      const got = await answer(err, { binding: 'rest', jsonrpcId: null, version: '1.0' });
      expect(got.status).toBe(row.http);
      expect(got.type).toBe('application/a2a+json');
      expect(got.body.error).toMatchObject({
        code: row.http,
        status: row.grpc,
        details: [expect.objectContaining(info)],
      });
    });

    it(`${err.kind} (${name}): REST 0.3 → the a2a-js 0.3 REST status, {code, message}`, async () => {
      const got = await answer(err, { binding: 'rest', jsonrpcId: null, version: '0.3' });
      expect(got.status).toBe(SDK_03_REST_STATUS[row.jsonrpc]);
      expect(got.body).toEqual({ code: row.jsonrpc, message: err.message });
    });

    for (const path of ['/lf.a2a.v1.A2AService/GetTask', '/a2a.v1.A2AService/GetTask']) {
      it(`${err.kind} (${name}): gRPC ${path.split('.')[0]} → ${row.grpc}, ErrorInfo in the details`, async () => {
        const trailers = await grpcTrailers(err, path);
        const status = decodeGrpcStatus(trailers)!;
        expect(GRPC_CODE_NAMES[status.code]).toBe(row.grpc);
        expect(status.reason).toBe(err.reason);
        expect(status.domain).toBe(domain);
      });
    }
  }
});
