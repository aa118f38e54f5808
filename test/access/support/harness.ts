// Shared by the access-control end-to-end tests (ownership, rules, rate limit, push guard): the
// principals and their keys, a gateway with `auth` on, SDK clients that send one principal's
// credentials (./auth-clients.ts), and raw HTTP calls for the exact shape of a refusal.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RecordedRequest, Peer } from '../../peers/peer-common.js';
import { startTestGateway, type TestAgent } from '../../support/gateway.js';
import type { RunningGateway } from '../../../src/gateway/gateway.js';
import type { ExchangeObserver } from '../../../src/exchange/exchange.js';
import type { ExchangeRecord } from '../../../src/exchange/record.js';

export const PRINCIPALS = {
  alice: { key: 'alice-key-0123456789abcdef', groups: ['team-a'] },
  bob: { key: 'bob-key-0123456789abcdef', groups: ['team-a'] },
  olga: { key: 'olga-key-0123456789abcdef', groups: ['ops'] },
  mallory: { key: 'mallory-key-0123456789abcdef', groups: ['guests'] },
} as const;

export type PrincipalName = keyof typeof PRINCIPALS;

/** A gateway with API-key auth for every principal above; the admin listener on an ephemeral port. */
export function startAccessGateway(
  agents: Record<string, TestAgent>,
  extra: Record<string, unknown> = {},
  observers: ExchangeObserver[] = [],
): Promise<RunningGateway> {
  return startTestGateway(
    agents,
    { admin: { listen: { host: '127.0.0.1', port: 0 } }, auth: { apiKeys: PRINCIPALS }, ...extra },
    observers,
  );
}

/** Every finished exchange's record, for what the gateway decided (`record.access`, findings). */
export function recordExchanges(): { observer: ExchangeObserver; records: ExchangeRecord[] } {
  const records: ExchangeRecord[] = [];
  return { observer: { name: 'test-records', onFinish: (exchange) => void records.push(exchange.record) }, records };
}

export interface Webhook {
  readonly url: string;
  /** Every notification received: headers and parsed body, oldest first. */
  readonly received: Array<{ headers: IncomingHttpHeaders; body: unknown }>;
  close(): Promise<void>;
}

/** A push-notification receiver on 127.0.0.1 (a real node:http server) that answers 200. */
export async function startWebhook(): Promise<Webhook> {
  const received: Webhook['received'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = Buffer.concat(chunks).toString('utf8');
      }
      received.push({ headers: req.headers, body });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhook`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The credential header of `who`: as a Bearer token, or (`apiKey`) as X-API-Key. */
export function credentials(who: PrincipalName, style: 'bearer' | 'apiKey' = 'bearer'): Record<string, string> {
  const key = PRINCIPALS[who].key;
  return style === 'bearer' ? { authorization: `Bearer ${key}` } : { 'x-api-key': key };
}

export interface RawReply {
  readonly status: number;
  readonly contentType: string | null;
  readonly headers: Headers;
  readonly text: string;
  /** The body parsed, when it is JSON. */
  readonly json: unknown;
}

export interface RawCall {
  readonly method?: 'GET' | 'POST' | 'DELETE';
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
}

/** One HTTP request as written (no SDK between), read whole. */
export async function call(url: string, who: PrincipalName | undefined, opts: RawCall = {}): Promise<RawReply> {
  const method = opts.method ?? (opts.body === undefined ? 'GET' : 'POST');
  const res = await fetch(url, {
    method,
    headers: {
      ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(who ? credentials(who) : {}),
      ...opts.headers,
    },
    body: opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body),
    signal: AbortSignal.timeout(5000),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, contentType: res.headers.get('content-type'), headers: res.headers, text, json };
}

/** What makes two answers the same to a caller: status, content type and body (`id` masked). */
export function comparable(reply: RawReply, id: string): { status: number; contentType: string | null; body: string } {
  return { status: reply.status, contentType: reply.contentType, body: reply.text.split(id).join('<task-id>') };
}

/** The requests the agent received from index `since` on, the gateway's card fetches left out. */
export function agentCalls(peer: Peer, since: number): RecordedRequest[] {
  return peer.requests.slice(since).filter((r) => !r.path.includes('/.well-known/'));
}

export const unknownTaskId = (): string => randomUUID();

/** The 1.0 JSON-RPC envelope of `method` with `params`. */
export function rpc(method: string, params: unknown, id: number | string = 1): Record<string, unknown> {
  return { jsonrpc: '2.0', id, method, params };
}

/** A 1.0 wire user message (proto JSON), optionally continuing `taskId`. */
export function wireMessageV1(text: string, taskId?: string): Record<string, unknown> {
  return {
    messageId: randomUUID(),
    role: 'ROLE_USER',
    parts: [{ text, mediaType: 'text/plain' }],
    ...(taskId ? { taskId } : {}),
  };
}

/** A 0.3 wire user message, optionally continuing `taskId`. */
export function wireMessageV03(text: string, taskId?: string): Record<string, unknown> {
  return {
    kind: 'message',
    messageId: randomUUID(),
    role: 'user',
    parts: [{ kind: 'text', text }],
    ...(taskId ? { taskId } : {}),
  };
}

export const V1 = { 'a2a-version': '1.0' } as const;

/** The gateway error's ErrorInfo (`data[0]` of JSON-RPC, `error.details[0]` of REST). */
export function errorInfoOf(json: unknown): { reason?: string; domain?: string } | undefined {
  const doc = json as {
    error?: {
      data?: Array<{ reason?: string; domain?: string }>;
      details?: Array<{ reason?: string; domain?: string }>;
    };
  };
  return doc?.error?.data?.[0] ?? doc?.error?.details?.[0];
}
