/**
 * Every JSON payload of the recorded JSON-RPC and HTTP+JSON exchanges (test/fixtures/captures,
 * parsed by test/a2a/captures.ts) that the translators (src/translate/) take: request bodies,
 * unary answers, each SSE event's data, push webhook bodies and agent cards, each with the
 * operation, binding and protocol version it was recorded in.
 *
 * The version is the capture's (README.md prefixes: `v03--*` and `v1compat--v03client-*` speak 0.3,
 * `v1--*` and `v1compat--v1client-*` 1.0). The `v1--edge-*` exchanges are curl's deliberately odd
 * inputs: the ones whose payload is not a well-formed payload of its version are in ODD, with why.
 */
import { matchRestRoute } from '../../../src/a2a/rest-routes.js';
import { operationForJsonRpcMethod, type Operation, type ProtocolVersion } from '../../../src/a2a/operations.js';
import { listCaptures, loadCapture, type Capture } from '../../a2a/captures.js';

export type PayloadKind = 'request' | 'answer' | 'event' | 'push' | 'card';

export interface Payload {
  /** Capture file, and `#n` for the n-th SSE event (from 0). */
  readonly where: string;
  readonly capture: string;
  readonly binding: 'jsonrpc' | 'rest';
  readonly version: ProtocolVersion;
  readonly op: Operation;
  readonly kind: PayloadKind;
  /** The HTTP status of the answer the payload is in (requests: 0). */
  readonly httpStatus: number;
  /** REST: the route's task id (push-config bodies name it in the path). */
  readonly taskId: string | undefined;
  readonly json: unknown;
}

/**
 * Recorded payloads that are not well-formed payloads of their version, on purpose (curl edge
 * cases): what they are and why they are left out of the schema and round-trip checks.
 */
export const ODD: Readonly<Record<string, string>> = {
  'v1--edge-rpc-enum-lowercase-role.http': "a 1.0 request with the 0.3 role 'user' (refusals.test.ts translates it)",
  'v1--edge-rpc-v03-part-shape.http': 'a 1.0 request with 0.3 `kind`-tagged parts',
  'v1--edge-rpc-v03-method-name-with-v1-header.http': 'a 0.3 method name with 1.0 params, sent as 1.0',
  'v1--edge-rpc-batch.http': 'a JSON-RPC batch (an array): A2A has none',
  'v1--edge-rpc-invalid-json.http': 'the request body is not JSON',
  'v1--edge-rest-invalid-json.http': 'the request body is not JSON',
  'v1--edge-rpc-unknown-method.http': 'no such method in either version',
  'v1--edge-rpc-missing-params.http': 'GetTask without params',
};

export function versionOf(capture: string): ProtocolVersion {
  if (
    capture.startsWith('v03--') ||
    capture.startsWith('v1compat--v03client-') ||
    capture.startsWith('v1compat--push-v03client-')
  ) {
    return '0.3';
  }
  if (capture.startsWith('v1--') || capture.startsWith('v1compat--v1client-')) return '1.0';
  throw new Error(`${capture}: no version for this prefix`);
}

const CARD_PATHS = new Set(['/.well-known/agent-card.json', '/.well-known/agent.json']);

function json(bytes: Uint8Array): unknown {
  return JSON.parse(new TextDecoder().decode(bytes));
}

/** The `data:` of each SSE event (one `data:` line each in these captures). */
export function sseData(body: Uint8Array): unknown[] {
  return new TextDecoder()
    .decode(body)
    .split('\n\n')
    .map((event) =>
      event
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart())
        .join('\n'),
    )
    .filter((data) => data !== '')
    .map((data) => JSON.parse(data) as unknown);
}

/** Every payload of one capture (none for the ODD ones and for non-JSON answers). */
export function payloadsOf(capture: Capture): Payload[] {
  const name = capture.name;
  if (ODD[name] !== undefined) return [];
  const version = versionOf(name);
  const { request, response } = capture;
  const out: Payload[] = [];
  const base = { capture: name, version, taskId: undefined as string | undefined };

  if (name.includes('--push-')) {
    // A webhook delivery: 1.0 a StreamResponse, 0.3 the bare `kind`-tagged event (JSON-RPC spelling).
    out.push({
      ...base,
      where: name,
      binding: 'jsonrpc',
      op: 'SendStreamingMessage',
      kind: 'push',
      httpStatus: 0,
      json: json(request.body),
    });
    return out;
  }
  if (request.method === 'GET' && CARD_PATHS.has(request.path)) {
    if (response?.status === 200) {
      out.push({
        ...base,
        where: name,
        binding: 'rest',
        op: 'AgentCard',
        kind: 'card',
        httpStatus: 200,
        json: json(response.body),
      });
    }
    return out;
  }

  let binding: 'jsonrpc' | 'rest';
  let op: Operation;
  let taskId: string | undefined;
  if (request.path.endsWith('/jsonrpc')) {
    if (request.method !== 'POST') return [];
    binding = 'jsonrpc';
    const doc = json(request.body) as { method: string };
    const found = operationForJsonRpcMethod(doc.method);
    if (found === undefined) throw new Error(`${name}: unknown method ${doc.method}`);
    op = found.operation;
  } else {
    binding = 'rest';
    const route = matchRestRoute(request.method, request.path);
    if (route === undefined) return [];
    op = route.operation;
    taskId = route.taskId;
  }
  const at = { ...base, binding, op, taskId };
  if (request.body.length > 0)
    out.push({ ...at, where: `${name} request`, kind: 'request', httpStatus: 0, json: json(request.body) });
  if (response === undefined || response.body.length === 0) return out;
  const type = response.headers['content-type'] ?? '';
  if (type.startsWith('text/event-stream')) {
    sseData(response.body).forEach((data, i) =>
      out.push({ ...at, where: `${name} #${i}`, kind: 'event', httpStatus: response.status, json: data }),
    );
  } else if (/json/.test(type)) {
    out.push({
      ...at,
      where: `${name} answer`,
      kind: 'answer',
      httpStatus: response.status,
      json: json(response.body),
    });
  }
  return out;
}

/** Every payload of every recorded JSON-RPC / HTTP+JSON exchange. */
export function allPayloads(): Payload[] {
  return listCaptures().flatMap((name) => payloadsOf(loadCapture(name)));
}

/** Whether a payload is an error answer (JSON-RPC `error`, or an HTTP+JSON error status). */
export function isError(p: Payload): boolean {
  if (p.kind !== 'answer' && p.kind !== 'event') return false;
  if (p.binding === 'rest') return p.httpStatus >= 400;
  return typeof p.json === 'object' && p.json !== null && 'error' in p.json;
}
