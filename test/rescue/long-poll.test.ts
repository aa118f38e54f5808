/**
 * The timeout rescue's long-poll GetTask (draft 1.1, a2aproject/A2A branch `dev-1.1` commit
 * 28491879: `GetTaskRequest.current_generation`, spec §3.2.7; wire-reference §7.4). The peer is
 * a small real HTTP agent written here, over a real socket — no SDK agent keeps a task
 * `generation` yet — with the draft's semantics: a GetTask naming `currentGeneration` is held
 * until the task's generation passes it (`hold`), or answered at once regardless (`no-hold`, which
 * the draft allows); tasks without a generation (`plain`) are a 1.0 agent; each on JSON-RPC,
 * HTTP+JSON and gRPC (a raw HTTP/2 server; the SDK 1.3.0 gRPC client calls the gateway). The draft
 * defines no card capability for it: an agent that shows a generation ≥ 1 is one that keeps it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createH2Server, type Http2Server, type ServerHttp2Stream } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptedUpstream } from '../support/scripted-upstream.js';
import { within, withDeadline } from '../peers/deadline.js';
import { waitReady } from '../state/support/replicas.js';
import { clientV1, sendRequestV1, userMessageV1 } from '../peers/clients.js';
import { asTask, stateName } from '../peers/inspect.js';
import { concat, responseBytes, task1, V1 } from '../a2a/grpc/sdk-wire.js';
import { encodeGrpcFrame } from '../../src/codec/grpc-frames.js';
import { eachField, lengthDelimitedField } from '../../src/a2a/grpc/proto-read.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import type { ExchangeRecord } from '../../src/exchange/record.js';

type Mode = 'hold' | 'no-hold' | 'plain';

interface AgentTask {
  id: string;
  state: string;
  generation: number;
  gets: number;
  waiters: (() => void)[];
}

/** One GetTask the agent received: the `currentGeneration` it named, and whether it was held. */
interface SeenGet {
  currentGeneration?: string;
  held: boolean;
}

function longPollAgent(mode: Mode) {
  const tasks = new Map<string, AgentTask>();
  const gets: SeenGet[] = [];
  /** The task as ProtoJSON (int64 generation as a string), or as protobuf bytes (generation: field 7). */
  const view = (t: AgentTask) => ({
    id: t.id,
    contextId: 'ctx-1',
    status: { state: t.state },
    ...(mode === 'plain' ? {} : { generation: String(t.generation) }),
  });
  const proto = (t: AgentTask): Uint8Array => {
    const state = t.state === 'TASK_STATE_COMPLETED' ? 3 : 2;
    const bytes = responseBytes(V1.getTask!, task1(t.id, state));
    if (mode === 'plain') return bytes;
    return concat(bytes, new BinaryWriter().tag(7, WireType.Varint).int64(t.generation).finish());
  };
  const complete = (t: AgentTask) => {
    t.state = 'TASK_STATE_COMPLETED';
    t.generation++;
    for (const wake of t.waiters.splice(0)) wake();
  };
  const send = () => {
    const t: AgentTask = { id: randomUUID(), state: 'TASK_STATE_WORKING', generation: 1, gets: 0, waiters: [] };
    tasks.set(t.id, t);
    return t;
  };
  /** Held until the generation passes `since` (mode hold); the hold is what moves the task on. */
  const getTask = async (id: string, since: string | undefined) => {
    const t = tasks.get(id)!;
    t.gets++;
    const held = mode === 'hold' && since !== undefined && t.generation <= Number(since);
    gets.push({ ...(since !== undefined ? { currentGeneration: since } : {}), held });
    if (held) {
      await new Promise<void>((wake) => {
        t.waiters.push(wake);
        setImmediate(() => complete(t));
      });
    } else if (mode !== 'hold' && t.gets === 3) complete(t);
    return t;
  };
  return { send, getTask, gets, view, proto };
}

async function readJson(req: IncomingMessage): Promise<Record<string, any>> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text ? JSON.parse(text) : {};
}

function json(res: ServerResponse, body: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** The gRPC binding of the same agent (lf.a2a.v1, docs/proto/a2a-v1.0.0.proto): SendMessage and
 * GetTask (id 2, current_generation 4), one uncompressed message each way. */
async function serveGrpc(agent: ReturnType<typeof longPollAgent>, stream: ServerHttp2Stream, path: string) {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  const request = Buffer.concat(chunks).subarray(5);
  let reply: Uint8Array;
  if (path.endsWith('/SendMessage')) reply = lengthDelimitedField(1, agent.proto(agent.send()));
  else {
    let id = '';
    let since: string | undefined;
    eachField(request, (no, _wt, r) => {
      if (no === 2) id = r.string();
      else if (no === 4) since = String(r.int64());
    });
    reply = agent.proto(await agent.getTask(id, since));
  }
  stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
  stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
  stream.end(encodeGrpcFrame(reply));
}

/** The JSON bindings and the card (its GRPC interface at `grpcAddress`). */
async function serve(
  agent: ReturnType<typeof longPollAgent>,
  at: { base: string; grpcAddress: string },
  req: IncomingMessage,
  res: ServerResponse,
) {
  const url = new URL(req.url ?? '/', 'http://agent');
  const body = await readJson(req);
  if (url.pathname === '/.well-known/agent-card.json') {
    const ifaces = [
      { url: `${at.base}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${at.base}/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: at.grpcAddress, protocolBinding: 'GRPC', protocolVersion: '1.0' },
    ];
    const card = {
      name: 'long-poll agent',
      supportedInterfaces: ifaces,
      capabilities: { streaming: false },
      skills: [],
    };
    return json(res, card);
  }
  if (url.pathname === '/rpc') {
    const result =
      body.method === 'SendMessage'
        ? { task: agent.view(agent.send()) }
        : agent.view(await agent.getTask(body.params.id, body.params.currentGeneration));
    return json(res, { jsonrpc: '2.0', id: body.id, result });
  }
  if (url.pathname === '/rest/message:send') return json(res, { task: agent.view(agent.send()) });
  const get = /^\/rest\/tasks\/([^/]+)$/.exec(url.pathname);
  const since = url.searchParams.get('currentGeneration') ?? undefined;
  if (get) return json(res, agent.view(await agent.getTask(decodeURIComponent(get[1]!), since)));
  res.writeHead(404).end();
}

const agents = { hold: longPollAgent('hold'), 'no-hold': longPollAgent('no-hold'), plain: longPollAgent('plain') };
const upstreams: { url: string; close: () => Promise<void> }[] = [];
const grpcServers: Http2Server[] = [];
let gw: RunningGateway;

beforeAll(async () => {
  const config: Record<string, Record<string, unknown>> = {};
  for (const [name, agent] of Object.entries(agents)) {
    const h2 = createH2Server();
    h2.on('stream', (stream, headers) => void serveGrpc(agent, stream, String(headers[':path'])));
    await new Promise<void>((r) => h2.listen(0, '127.0.0.1', r));
    grpcServers.push(h2);
    const at = { base: '', grpcAddress: `127.0.0.1:${(h2.address() as AddressInfo).port}` };
    const upstream = await scriptedUpstream((req, res) => void serve(agent, at, req, res));
    at.base = upstream.url;
    upstreams.push(upstream);
    const timeoutRescue = { enabled: true, clientTimeout: '20s', pollInitial: '10ms', pollMax: '20ms' };
    config[name] = { url: upstream.url, grpc: { listen: { port: 0 } }, timeoutRescue };
  }
  gw = await startTestGateway(config);
  await waitReady(gw);
});
afterAll(async () => {
  await gw?.close();
  await Promise.all(upstreams.map((u) => u.close()));
  for (const h2 of grpcServers) await new Promise((r) => h2.close(r));
});

const message = () => ({ messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'go' }] });

/** A blocking SendMessage through the gateway (the rescue takes it); the task state answered. */
async function blockingSend(agent: Mode, binding: 'jsonrpc' | 'rest' | 'grpc'): Promise<string> {
  if (binding === 'grpc') {
    const c = await withDeadline(clientV1(`${gw.url}/agents/${agent}/`, { transport: 'GRPC' }), 5000, 'card');
    const task = asTask(await c.sendMessage(sendRequestV1(userMessageV1('go')), within(10_000)));
    return `TASK_STATE_${stateName(task.status?.state)}`;
  }
  const [path, body] =
    binding === 'jsonrpc'
      ? ['/rpc', { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: message() } }]
      : ['/rest/message:send', { message: message() }];
  const res = await fetch(`${gw.url}/agents/${agent}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify(body),
    ...within(10_000),
  });
  expect(res.status).toBe(200);
  const doc = (await res.json()) as Record<string, any>;
  return (binding === 'jsonrpc' ? doc.result : doc).task.status.state;
}

async function rescueOf(agent: string): Promise<ExchangeRecord['rescue']> {
  const res = await fetch(`${gw.adminUrl}/exchanges?agent=${agent}&limit=1`, within(3000));
  return ((await res.json()) as { exchanges: ExchangeRecord[] }).exchanges[0]!.rescue;
}

describe.each(['jsonrpc', 'rest', 'grpc'] as const)('%s: the rescue of a blocking send', (binding) => {
  it('long-polls an agent that keeps a generation: one held GetTask from the generation it showed', async () => {
    const before = agents.hold.gets.length;
    expect(await blockingSend('hold', binding)).toBe('TASK_STATE_COMPLETED');
    // The held long-poll, then step 4's GetTask of the settled task (no currentGeneration).
    expect(agents.hold.gets.slice(before)).toEqual([{ currentGeneration: '1', held: true }, { held: false }]);
    expect(await rescueOf('hold')).toMatchObject({ strategy: 'poll', outcome: 'settled', polls: 1, longPolls: 1 });
  });

  it('keeps polling (at its interval) with the generation when the long-poll comes back unchanged, until the task settles', async () => {
    const before = agents['no-hold'].gets.length;
    expect(await blockingSend('no-hold', binding)).toBe('TASK_STATE_COMPLETED');
    const polls = agents['no-hold'].gets.slice(before, -1);
    expect(polls.map((g) => g.currentGeneration)).toEqual(['1', '1', '1']);
    expect(await rescueOf('no-hold')).toMatchObject({ outcome: 'settled', polls: 3, longPolls: 3 });
  });

  it('polls a 1.0 agent (no generation) as before: no currentGeneration sent', async () => {
    const before = agents.plain.gets.length;
    expect(await blockingSend('plain', binding)).toBe('TASK_STATE_COMPLETED');
    expect(agents.plain.gets.slice(before).every((g) => g.currentGeneration === undefined)).toBe(true);
    const rescue = await rescueOf('plain');
    expect([rescue?.outcome, rescue?.polls, rescue?.longPolls]).toEqual(['settled', 3, undefined]);
  });
});
