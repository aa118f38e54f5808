// The two answers the gateway rewrites on the gRPC binding (issue #16), end to end with the SDK
// 1.3.0 gRPC client and the SDK's own gRPC server behind the gateway (the agent's own gRPC port):
// the extended card (GetExtendedAgentCard) comes back with every interface at the gateway, the
// rest of it as the agent sent it; and under task ownership, ListTasks shows each caller only
// their own tasks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as grpc from '@grpc/grpc-js';
import { A2AService } from '@a2a-js/sdk/server/grpc';
import { LegacyA2AService } from '@a2a-js/sdk/compat/v0_3/server/grpc';
import { TaskState, type AgentCard } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { startPeerV1 } from '../peers/peer-v1.js';
import type { Peer } from '../peers/peer-common.js';
import { clientV1, sendRequestV1, userMessageV1 } from '../peers/clients.js';
import { within, withDeadline } from '../peers/deadline.js';
import { asTask } from '../peers/inspect.js';
import { startTestGateway } from '../support/gateway.js';
import { PRINCIPALS, startAccessGateway, type PrincipalName } from '../access/support/harness.js';
import { fetchAs } from '../access/support/auth-clients.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import type { ExchangeRecord } from '../../src/exchange/record.js';
import type { ExchangeObserver } from '../../src/exchange/exchange.js';

const grpcClient = (url: string, cardFetchImpl?: typeof fetch) =>
  withDeadline(clientV1(url, { transport: 'GRPC', ...(cardFetchImpl ? { cardFetchImpl } : {}) }), 5000, 'card');

async function grpcRecords(gw: RunningGateway): Promise<ExchangeRecord[]> {
  const res = await fetch(`${gw.adminUrl}/exchanges?limit=500`, { signal: AbortSignal.timeout(3000) });
  return ((await res.json()) as { exchanges: ExchangeRecord[] }).exchanges.filter((r) => r.a2a?.binding === 'grpc');
}

describe('the extended card over gRPC', () => {
  let peer: Peer;
  let gw: RunningGateway;
  beforeAll(async () => {
    peer = await startPeerV1({ extendedCard: true, grpc: true });
    gw = await startTestGateway({ x: { url: peer.url, grpc: { listen: { port: 0 } } } });
  });
  afterAll(async () => {
    await gw?.close();
    await peer?.close();
  });

  let own: AgentCard;
  let relayed: AgentCard;
  beforeAll(async () => {
    own = await (await grpcClient(`${peer.url}/`)).getAgentCard(within(3000));
    relayed = await (await grpcClient(`${gw.url}/agents/x/`)).getAgentCard(within(3000));
  });

  it('is the extended card, and the agent’s own lists interfaces at the agent', () => {
    expect(relayed.name).toBe('a2a-js peer (SDK 1.3.0) (extended)');
    expect(own.supportedInterfaces.map((i) => i.protocolBinding).sort()).toEqual(['GRPC', 'HTTP+JSON', 'JSONRPC']);
    expect(own.supportedInterfaces.find((i) => i.protocolBinding === 'GRPC')?.url).toBe(peer.grpcUrl);
  });

  it('points every interface at the gateway', () => {
    const port = gw.grpcPorts.agents.get('x');
    for (const i of relayed.supportedInterfaces) {
      if (i.protocolBinding === 'GRPC') expect(i.url).toBe(`127.0.0.1:${port}`);
      else expect(i.url.startsWith(`${gw.url}/agents/x`), i.url).toBe(true);
    }
    const paths = (card: AgentCard) =>
      card.supportedInterfaces.map((i) => [i.protocolBinding, new URL(i.url, 'x:/').pathname]);
    expect(relayed.supportedInterfaces).toHaveLength(own.supportedInterfaces.length);
    expect(
      paths(relayed)
        .filter(([b]) => b !== 'GRPC')
        .map(([b, p]) => [b, p!.replace('/agents/x', '')]),
    ).toEqual(
      paths(own)
        .filter(([b]) => b !== 'GRPC')
        .map(([b, p]) => [b, p!.replace(new URL(peer.url).pathname.replace(/\/$/, ''), '')]),
    );
  });

  it('changes nothing else', () => {
    const rest = ({ supportedInterfaces: _i, signatures: _s, ...others }: AgentCard) => others;
    expect(rest(relayed)).toEqual(rest(own));
  });

  it('lists the same interfaces as the public card and the extended card over JSON-RPC (one rule)', async () => {
    const res = await fetch(`${gw.url}/agents/x/.well-known/agent-card.json`, { signal: AbortSignal.timeout(3000) });
    const served = (await res.json()) as AgentCard;
    const overJsonRpc = await (
      await clientV1(`${gw.url}/agents/x/`, { transport: 'JSONRPC' })
    ).getAgentCard(within(3000));
    expect(overJsonRpc.name).toBe(relayed.name);
    expect(overJsonRpc.supportedInterfaces).toEqual(relayed.supportedInterfaces);
    expect(served.supportedInterfaces).toEqual(relayed.supportedInterfaces);
  });

  it('was read over the gateway’s gRPC listener', async () => {
    const calls = (await grpcRecords(gw)).filter((r) => r.a2a?.operation === 'GetExtendedAgentCard');
    expect(calls.length).toBeGreaterThanOrEqual(1);
    expect(calls.every((r) => r.outcome === 'complete' && r.findings.length === 0)).toBe(true);
  });
});

describe('ListTasks over gRPC under task ownership', () => {
  let peer: Peer;
  let gw: RunningGateway;
  const created: Record<'alice' | 'bob', Set<string>> = { alice: new Set(), bob: new Set() };
  /** What observers saw of each ListTasks answer, by caller. */
  const observed = new Map<string, Buffer[]>();
  const seen: ExchangeObserver = {
    name: 'test-list-answers',
    onResponseChunk: (exchange, chunk) => {
      const who = exchange.record.access?.principal;
      if (exchange.request?.operation === 'ListTasks' && who) observed.set(who, [...(observed.get(who) ?? []), chunk]);
    },
  };

  const client = (who: PrincipalName): Promise<Client> => grpcClient(`${gw.url}/agents/x/`, fetchAs(who));
  /** gRPC metadata: the SDK sends a call's service parameters as metadata. */
  const as = (who: PrincipalName, ms = 5000) => ({
    ...within(ms),
    serviceParameters: { 'x-api-key': PRINCIPALS[who].key },
  });
  const list = async (who: PrincipalName) =>
    (await client(who)).listTasks(
      {
        tenant: '',
        contextId: '',
        status: TaskState.TASK_STATE_UNSPECIFIED,
        pageToken: '',
        statusTimestampAfter: undefined,
      },
      as(who, 3000),
    );

  beforeAll(async () => {
    peer = await startPeerV1({ grpc: true, stepMs: 20 });
    // taskOwnership is on by default with `auth`; it is named here to be plain.
    gw = await startAccessGateway(
      { x: { url: peer.url, grpc: { listen: { port: 0 } }, access: { allow: ['team-a'], taskOwnership: true } } },
      {},
      [seen],
    );
    for (const who of ['alice', 'bob', 'alice'] as const) {
      const task = asTask(await (await client(who)).sendMessage(sendRequestV1(userMessageV1('needs input')), as(who)));
      created[who].add(task.id);
    }
  });
  afterAll(async () => {
    await gw?.close();
    await peer?.close();
  });

  it('the agent itself lists every task', async () => {
    const all = await (
      await grpcClient(`${peer.url}/`)
    ).listTasks(
      {
        tenant: '',
        contextId: '',
        status: TaskState.TASK_STATE_UNSPECIFIED,
        pageToken: '',
        statusTimestampAfter: undefined,
      },
      within(3000),
    );
    const ids = all.tasks.map((t) => t.id);
    for (const id of [...created.alice, ...created.bob]) expect(ids).toContain(id);
  });

  it('shows alice her tasks and none of bob’s, bob his own and none of alice’s', async () => {
    const [mine, his] = [await list('alice'), await list('bob')];
    expect(mine.tasks.map((t) => t.id).sort()).toEqual([...created.alice].sort());
    expect(his.tasks.map((t) => t.id)).toEqual([...created.bob]);
    expect([mine.totalSize, his.totalSize]).toEqual([2, 1]);
  });

  it('observers see the answer the caller got', () => {
    const body = Buffer.concat(observed.get('bob') ?? []);
    const message = A2AService.listTasks.responseDeserialize(body.subarray(5));
    expect(body.readUInt32BE(1)).toBe(body.length - 5);
    expect(message.tasks.map((t) => t.id)).toEqual([...created.bob]);
  });

  it('went through the gateway’s gRPC listener', async () => {
    const calls = (await grpcRecords(gw)).filter((r) => r.a2a?.operation === 'ListTasks');
    expect(calls.map((r) => r.access?.principal).sort()).toEqual(['alice', 'bob']);
  });
});

interface UnaryDef<Req, Res> {
  readonly path: string;
  readonly requestSerialize: (value: Req) => Buffer;
  readonly responseDeserialize: (value: Buffer) => Res;
}

/** 1.0 calls say so (`a2a-version`, §10.2): the SDK's server takes a call without it for 0.3. */
function metadataFor(path: string): grpc.Metadata {
  const metadata = new grpc.Metadata();
  if (path.startsWith('/lf.a2a.v1.')) metadata.set('a2a-version', '1.0');
  return metadata;
}

/** One unary call with grpc-js itself (no A2A client between): the answer, or the status it failed with. */
function unary<Req, Res>(target: string, def: UnaryDef<Req, Res>, request: Req): Promise<Res | grpc.ServiceError> {
  const client = new grpc.Client(target, grpc.credentials.createInsecure());
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      def.path,
      def.requestSerialize,
      def.responseDeserialize,
      request,
      metadataFor(def.path),
      { deadline: Date.now() + 3000 },
      (err, value) => {
        client.close();
        resolve(err ?? (value as Res));
      },
    );
  });
}

describe('held answers at the edges', () => {
  let compat: Peer;
  let plain: Peer;
  let gw: RunningGateway;
  beforeAll(async () => {
    [compat, plain] = await Promise.all([
      startPeerV1({ grpc: true, compatV03: true, extendedCard: true }),
      startPeerV1({ grpc: true }),
    ]);
    gw = await startTestGateway({
      old: { url: compat.url, grpc: { listen: { port: 0 } } },
      plain: { url: plain.url, grpc: { listen: { port: 0 } } },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await Promise.all([compat?.close(), plain?.close()]);
  });
  const at = (agent: string) => `127.0.0.1:${gw.grpcPorts.agents.get(agent)}`;

  it('0.3 GetAgentCard: `url` and additional_interfaces point at the gateway', async () => {
    const card = await unary(at('old'), LegacyA2AService.getAgentCard, {} as never);
    if (card instanceof Error) throw card;
    const all = [card.url, ...card.additionalInterfaces.map((i) => i.url)];
    expect(all.length).toBeGreaterThan(1);
    for (const url of all) expect(url === at('old') || url.startsWith(`${gw.url}/agents/old`), url).toBe(true);
    expect(card.signatures).toEqual([]);
  });

  it('an error answer goes through as the agent gave it', async () => {
    const request = { tenant: '' } as never;
    const direct = await unary(plain.grpcUrl!, A2AService.getExtendedAgentCard, request);
    const relayed = await unary(at('plain'), A2AService.getExtendedAgentCard, request);
    expect(direct).toBeInstanceOf(Error);
    expect((direct as grpc.ServiceError).details).toMatch(/extended/i);
    const status = (e: unknown) => {
      const err = e as grpc.ServiceError;
      return { code: err.code, details: err.details, bin: err.metadata.get('grpc-status-details-bin') };
    };
    expect(status(relayed)).toEqual(status(direct));
  });
});

describe('a held answer larger than the gateway holds', () => {
  let peer: Peer;
  let gw: RunningGateway;
  const LIMIT = 600;
  beforeAll(async () => {
    peer = await startPeerV1({ grpc: true, stepMs: 20 });
    gw = await startAccessGateway(
      { x: { url: peer.url, grpc: { listen: { port: 0 } }, access: { allow: ['team-a'] } } },
      { limits: { grpc: { messageBytes: LIMIT } } },
    );
  });
  afterAll(async () => {
    await gw?.close();
    await peer?.close();
  });

  it('is refused with an error, never cut', async () => {
    const c = await grpcClient(`${gw.url}/agents/x/`, fetchAs('alice'));
    const as = { ...within(5000), serviceParameters: { 'x-api-key': PRINCIPALS.alice.key } };
    for (let i = 0; i < 4; i++) await c.sendMessage(sendRequestV1(userMessageV1('needs input')), as);
    const query = {
      tenant: '',
      contextId: '',
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageToken: '',
      statusTimestampAfter: undefined,
    };
    const direct = await unary(peer.grpcUrl!, A2AService.listTasks, query as never);
    if (direct instanceof Error) throw direct;
    expect(A2AService.listTasks.responseSerialize(direct).length).toBeGreaterThan(LIMIT);
    await expect(c.listTasks(query, as)).rejects.toThrow(/larger than the 600 bytes/);
  });
});
