/**
 * Tenants (spec §5.7, wire-reference §5.7) through the gateway, over real sockets: the SDK 1.3.0
 * client names a tenant on each binding — JSON-RPC `params.tenant`, gRPC field 1, REST the
 * `/{tenant}` path prefix (capture `v1--edge-rest-tenant-path.http`) — and the SDK 1.3.0 agent
 * gets the call unchanged; the gateway classifies it as the right operation and records the
 * tenant (exchange record, access log). An agent with `tenants` refuses any other tenant in the
 * caller's protocol, before the agent hears of it.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPeerV1 } from '../peers/peer-v1.js';
import type { Peer } from '../peers/peer-common.js';
import { clientV1, sendRequestV1, userMessageV1, type TransportName } from '../peers/clients.js';
import { within, withDeadline } from '../peers/deadline.js';
import { waitReady } from '../state/support/replicas.js';
import { asMessage, asTask, texts } from '../peers/inspect.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import type { ExchangeRecord } from '../../src/exchange/record.js';

let peer: Peer;
let gw: RunningGateway;
const logLines: string[] = [];

beforeAll(async () => {
  peer = await startPeerV1({ grpc: true, stepMs: 20 });
  const sink = new Writable({ write: (chunk, _e, done) => (logLines.push(String(chunk)), done()) });
  gw = await startTestGateway(
    {
      open: { url: peer.url, grpc: { listen: { port: 0 } } },
      closed: { url: peer.url, grpc: { listen: { port: 0 } }, tenants: ['acme'] },
    },
    {},
    [],
    pino({ level: 'info' }, sink),
  );
  // The REST `/{tenant}` segment is told from the card's interface paths, known once it is fetched.
  await waitReady(gw);
});
afterAll(async () => {
  await gw?.close();
  await peer?.close();
});

const client = (agent: string, transport: TransportName) =>
  withDeadline(clientV1(`${gw.url}/agents/${agent}/`, { transport }), 5000, 'card');

async function lastRecord(agent: string): Promise<ExchangeRecord> {
  const res = await fetch(`${gw.adminUrl}/exchanges?limit=20`, within(3000));
  const all = ((await res.json()) as { exchanges: ExchangeRecord[] }).exchanges;
  return all.find((r) => r.agent === agent)!;
}

/** What the agent was sent for the last call (method and path), as the peer recorded it. */
const lastAgentRequest = () => peer.requests.at(-1)!;

const AGENT_PATH = {
  JSONRPC: { send: '/a2a/jsonrpc', get: '/a2a/jsonrpc' },
  'HTTP+JSON': { send: '/a2a/rest/acme/message:send', get: (id: string) => `/a2a/rest/acme/tasks/${id}` },
  GRPC: { send: '/lf.a2a.v1.A2AService/SendMessage', get: '/lf.a2a.v1.A2AService/GetTask' },
} as const;

describe.each(['JSONRPC', 'HTTP+JSON', 'GRPC'] as const)('%s: a call naming tenant "acme"', (transport) => {
  it('reaches the agent unchanged, is classified, and has its tenant on the record and in the access log', async () => {
    const c = await client('open', transport);
    const reply = asMessage(
      await c.sendMessage({ ...sendRequestV1(userMessageV1('hi?')), tenant: 'acme' }, within(5000)),
    );
    expect(texts(reply.parts)[0]).toMatch(/You asked: hi\?/);
    expect(lastAgentRequest().path).toBe(AGENT_PATH[transport].send);
    const send = await lastRecord('open');
    expect([send.a2a?.operation, send.a2a?.tenant]).toEqual(['SendMessage', 'acme']);

    const task = asTask(
      await c.sendMessage({ ...sendRequestV1(userMessageV1('process this')), tenant: 'acme' }, within(5000)),
    );
    await c.getTask({ tenant: 'acme', id: task.id }, within(3000));
    const get = AGENT_PATH[transport].get;
    expect(lastAgentRequest().path).toBe(typeof get === 'string' ? get : get(task.id));
    const got = await lastRecord('open');
    expect([got.a2a?.operation, got.a2a?.taskId, got.a2a?.tenant]).toEqual(['GetTask', task.id, 'acme']);
    const logged = logLines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'exchange' && l.taskId === task.id);
    expect(logged.map((l) => l.tenant)).toContain('acme');
  });
});

describe.each(['JSONRPC', 'HTTP+JSON', 'GRPC'] as const)('%s: an agent with `tenants: [acme]`', (transport) => {
  it('admits "acme" and a call naming none', async () => {
    const c = await client('closed', transport);
    for (const tenant of ['acme', '']) {
      const reply = await c.sendMessage({ ...sendRequestV1(userMessageV1('hi?')), tenant }, within(5000));
      expect(texts(asMessage(reply).parts)).toHaveLength(1);
    }
  });

  it('refuses "other" with TENANT_NOT_FOUND in the caller\'s protocol; the agent never hears of it', async () => {
    const c = await client('closed', transport);
    const before = peer.requests.length;
    const refused = await c.sendMessage({ ...sendRequestV1(userMessageV1('hi?')), tenant: 'other' }, within(5000)).then(
      () => undefined,
      (err: unknown) => err as Error,
    );
    expect(refused).toBeInstanceOf(Error);
    expect(peer.requests.length).toBe(before);
    const record = await lastRecord('closed');
    expect([record.status, record.error?.reason]).toEqual([transport === 'GRPC' ? 200 : 404, 'TENANT_NOT_FOUND']);
    expect(record.a2a?.tenant).toBe('other');
  });
});
