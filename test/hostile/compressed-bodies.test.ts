/**
 * Issue #29 item 1: request bodies the gateway cannot read must not slip past its body checks.
 *
 * - A compressed A2A request body (`Content-Encoding: gzip`, `GZIP`, `deflate`, …) was classified
 *   `partial` and, over JSON-RPC (whose operation is in the body), passed the push-webhook guard
 *   unchecked on an agent without ownership rules; the SDK agent (Express body-parser inflates)
 *   stored a webhook at cloud metadata. The gateway now refuses every compressed request body:
 *   415 with `Accept-Encoding: identity` (RFC 9110 §15.5.16, §12.5.3), on every route, before
 *   the agent sees a byte — whatever `inspection.enabled` says and whatever the access rules.
 * - A JSON-RPC batch (an array) was forwarded uninspected. A2A defines single requests only (the
 *   SDK agent itself refuses a batch): the gateway answers the JSON-RPC InvalidRequest (-32600).
 *
 * Real sockets: a real SDK agent (1.3.0) and a recording agent behind in-process gateways.
 */
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { deflateSync, gzipSync } from 'node:zlib';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import { startTestGateway } from '../support/gateway.js';
import { scriptedUpstream } from '../support/scripted-upstream.js';
import { startPeerV1 } from '../peers/peer-v1.js';
import type { Peer } from '../peers/peer-common.js';

const METADATA = 'http://169.254.169.254/latest/meta-data/';
const V1 = { 'a2a-version': '1.0', 'content-type': 'application/json' };

interface Heard {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

let peer: Peer;
let recorder: Awaited<ReturnType<typeof scriptedUpstream>>;
const heard: Heard[] = [];
let gateway: RunningGateway; // defaults: inspection on, push guard on, no auth, no rules
let blind: RunningGateway; // inspection off
let taskId: string;

const rpc = (method: string, params: unknown, id: number | string = 1) => ({ jsonrpc: '2.0', id, method, params });
const message = (text: string) => ({ messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }] });

/** A JSON-RPC call straight to the SDK agent (not through the gateway). */
async function direct(method: string, params: unknown): Promise<{ result?: unknown; error?: unknown }> {
  const res = await fetch(`${peer.url}/a2a/jsonrpc`, {
    method: 'POST',
    headers: V1,
    body: JSON.stringify(rpc(method, params)),
  });
  return (await res.json()) as { result?: unknown; error?: unknown };
}

/** The push configs the SDK agent stores for `taskId`, as JSON text. */
async function storedConfigs(): Promise<string> {
  return JSON.stringify(await direct('ListTaskPushNotificationConfigs', { taskId }));
}

const agentPosts = () => peer.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/a2a/jsonrpc')).length;

beforeAll(async () => {
  peer = await startPeerV1({ stepMs: 5 });
  recorder = await scriptedUpstream((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url!.includes('/.well-known/')) {
        const card = {
          name: 'rec',
          supportedInterfaces: [{ url: 'http://127.0.0.1:1/', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
          capabilities: { pushNotifications: true },
        };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(card));
        return;
      }
      heard.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":1,"result":{}}');
    });
  });
  [gateway, blind] = await Promise.all([
    startTestGateway({ sdk: { url: peer.url }, rec: { url: recorder.url } }),
    startTestGateway({ sdk: { url: peer.url }, rec: { url: recorder.url } }, { inspection: { enabled: false } }),
  ]);
  // A task at the SDK agent, made directly, for the push configs below.
  const sent = await direct('SendMessage', { message: message('work'), configuration: { blocking: true } });
  taskId = ((sent.result as { task?: { id: string } }).task ?? (sent.result as { id: string })).id;
  expect(taskId).toBeTypeOf('string');
});
afterAll(async () => {
  await Promise.all([gateway?.close(), blind?.close()]);
  await Promise.all([peer?.close(), recorder?.close()]);
});

const CODINGS: ReadonlyArray<[header: string, encode: (b: Buffer) => Buffer]> = [
  ['gzip', gzipSync],
  ['GZIP', gzipSync],
  ['deflate', deflateSync],
  ['x-gzip', gzipSync],
  ['gzip, identity', gzipSync],
];

const CALLS = () => [
  {
    name: 'CreateTaskPushNotificationConfig',
    body: rpc('CreateTaskPushNotificationConfig', { taskId, id: 'evil', url: METADATA, token: 't' }, 7),
  },
  {
    name: 'SendMessage with configuration.taskPushNotificationConfig',
    body: rpc(
      'SendMessage',
      { message: message('work'), configuration: { taskPushNotificationConfig: { id: 'evil', url: METADATA } } },
      7,
    ),
  },
];

async function post(gw: RunningGateway, path: string, body: Buffer, headers: Record<string, string>) {
  const res = await fetch(`${gw.url}${path}`, { method: 'POST', headers: { ...V1, ...headers }, body });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

describe('a compressed JSON-RPC body (issue #29 item 1)', () => {
  for (const [coding, encode] of CODINGS) {
    for (const which of [
      'CreateTaskPushNotificationConfig',
      'SendMessage with configuration.taskPushNotificationConfig',
    ]) {
      it(`${which}, Content-Encoding: ${coding}, is refused 415 and never reaches the SDK agent`, async () => {
        const call = CALLS().find((c) => c.name === which)!;
        const before = agentPosts();
        const res = await post(gateway, '/agents/sdk/a2a/jsonrpc', encode(Buffer.from(JSON.stringify(call.body))), {
          'content-encoding': coding,
        });
        expect(res.status).toBe(415);
        expect(res.headers.get('accept-encoding')).toBe('identity');
        expect(JSON.parse(res.text)).toMatchObject({
          error: { code: 415, details: [{ reason: 'UNSUPPORTED_MEDIA_TYPE' }] },
        });
        expect(agentPosts()).toBe(before);
        expect(await storedConfigs()).not.toContain('169.254.169.254');
      });
    }
  }

  it('is refused with inspection off too (the recording agent hears nothing)', async () => {
    const before = heard.length;
    const body = gzipSync(Buffer.from(JSON.stringify(CALLS()[1]!.body)));
    const res = await post(blind, '/agents/rec/', body, { 'content-encoding': 'gzip' });
    expect(res.status).toBe(415);
    expect(heard.length).toBe(before);
  });

  it('a compressed body sent chunked (no Content-Length) is refused too', async () => {
    const before = agentPosts();
    const gz = gzipSync(Buffer.from(JSON.stringify(CALLS()[0]!.body)));
    const res = await request(`${gateway.url}/agents/sdk/a2a/jsonrpc`, {
      method: 'POST',
      headers: { ...V1, 'content-encoding': 'gzip' },
      body: Readable.from([gz.subarray(0, 10), gz.subarray(10)], { objectMode: false }),
    });
    expect(res.statusCode).toBe(415);
    await res.body.dump();
    expect(agentPosts()).toBe(before);
  });

  it('a compressed REST body is refused the same way', async () => {
    const before = heard.length;
    const config = gzipSync(Buffer.from(JSON.stringify({ id: 'evil', url: METADATA })));
    const res = await post(gateway, `/agents/rec/tasks/${taskId}/pushNotificationConfigs`, config, {
      'content-encoding': 'deflate',
    });
    expect(res.status).toBe(415);
    expect(res.headers.get('accept-encoding')).toBe('identity');
    expect(heard.length).toBe(before);
  });

  it('Content-Encoding: identity is no compression: the body is checked and forwarded as usual', async () => {
    const before = heard.length;
    const body = Buffer.from(JSON.stringify(rpc('GetTask', { id: 't1' })));
    const res = await post(gateway, '/agents/rec/', body, { 'content-encoding': 'identity' });
    expect(res.status).toBe(200);
    expect(heard.length).toBe(before + 1);
    const refused = await post(gateway, '/agents/rec/', Buffer.from(JSON.stringify(CALLS()[1]!.body)), {
      'content-encoding': 'identity',
    });
    expect(JSON.parse(refused.text)).toMatchObject({ error: { code: -32602 } }); // the push guard's
    expect(heard.length).toBe(before + 1);
  });
});

describe('a JSON-RPC method past the read-ahead (the same bypass: a body the guard did not read)', () => {
  it('a SendMessage whose "method" comes after 80 KiB of params is refused (push-config-unread, inspection off)', async () => {
    const before = agentPosts();
    const params = {
      message: message('x'.repeat(80 * 1024)),
      configuration: { taskPushNotificationConfig: { id: 'evil', url: METADATA } },
    };
    // Key order is the sender's: the SDK agent reads the method wherever it is (under its 100 KB limit).
    const body = `{"jsonrpc":"2.0","id":9,"params":${JSON.stringify(params)},"method":"SendMessage"}`;
    // With inspection off the classifier reads exactly the 64 KiB read-ahead (on, it may read a
    // whole first chunk past it), so the method is surely unread here.
    const res = await post(blind, '/agents/sdk/a2a/jsonrpc', Buffer.from(body), {});
    const answer = JSON.parse(res.text) as { error?: { code: number; data: Array<{ metadata: { rule: string } }> } };
    expect(answer.error?.code).toBe(-32602);
    expect(answer.error?.data[0]!.metadata.rule).toBe('push-config-unread');
    expect(agentPosts()).toBe(before);
  });
});

describe('Content-Encoding on a request without a body', () => {
  it('is no body to refuse: a GET goes through', async () => {
    const before = heard.length;
    const res = await fetch(`${gateway.url}/agents/rec/tasks/t1`, {
      headers: { ...V1, 'content-encoding': 'gzip' },
    });
    expect(res.status).toBe(200);
    await res.text();
    expect(heard.length).toBe(before + 1);
  });
});

describe('a JSON-RPC batch (issue #29 item 1)', () => {
  const batch = () => [
    rpc('GetTask', { id: 'x' }, 1),
    rpc('CreateTaskPushNotificationConfig', { taskId, id: 'evil', url: METADATA }, 2),
  ];

  it.each([
    ['inspection on', () => gateway],
    ['inspection off', () => blind],
  ])('is refused with the JSON-RPC InvalidRequest (-32600), never forwarded (%s)', async (_name, gw) => {
    const before = heard.length;
    const res = await post(gw(), '/agents/rec/', Buffer.from(JSON.stringify(batch())), {});
    expect(res.status).toBe(200);
    const answer = JSON.parse(res.text) as { jsonrpc: string; id: unknown; error: { code: number; message: string } };
    expect(answer).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    expect(answer.error.message).toMatch(/batch/i);
    expect(heard.length).toBe(before);
  });

  it('a batch larger than the read-ahead is refused too', async () => {
    const before = heard.length;
    const big = [rpc('SendMessage', { message: { ...message('x'.repeat(200 * 1024)) } }, 1), batch()[1]];
    const res = await post(gateway, '/agents/rec/', Buffer.from(JSON.stringify(big)), {});
    expect(JSON.parse(res.text)).toMatchObject({ id: null, error: { code: -32600 } });
    expect(heard.length).toBe(before);
  });

  it('an array of anything posted to the JSON-RPC endpoint is a batch', async () => {
    const before = heard.length;
    const res = await post(gateway, '/agents/rec/', Buffer.from('[1, {"jsonrpc":"2.0","method":"GetTask"}]'), {});
    expect(JSON.parse(res.text)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    expect(heard.length).toBe(before);
  });

  it('a batch of one push config never reaches the SDK agent either', async () => {
    const before = agentPosts();
    const res = await post(gateway, '/agents/sdk/a2a/jsonrpc', Buffer.from(JSON.stringify([batch()[1]])), {});
    expect(JSON.parse(res.text)).toMatchObject({ id: null, error: { code: -32600 } });
    expect(agentPosts()).toBe(before);
    expect(await storedConfigs()).not.toContain('169.254.169.254');
  });
});
