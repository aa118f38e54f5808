/**
 * The timeout rescue's long-poll GetTask (draft 1.1, a2aproject/A2A branch `dev-1.1` commit
 * 28491879: `GetTaskRequest.current_generation`, spec §3.2.7; wire-reference §7.4). The peer is
 * a small real HTTP agent written here, over a real socket — no SDK agent keeps a task
 * `generation` yet — with the draft's semantics: a GetTask naming `currentGeneration` is held
 * until the task's generation passes it (`hold`), or answered at once regardless (`no-hold`, which
 * the draft allows); tasks without a generation (`plain`) are a 1.0 agent. The draft defines no
 * card capability for it: an agent that shows a generation ≥ 1 is one that keeps it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptedUpstream } from '../support/scripted-upstream.js';
import { pollUntil, within } from '../peers/deadline.js';
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
  const view = (t: AgentTask) => ({
    id: t.id,
    contextId: 'ctx-1',
    status: { state: t.state },
    ...(mode === 'plain' ? {} : { generation: String(t.generation) }),
  });
  const complete = (t: AgentTask) => {
    t.state = 'TASK_STATE_COMPLETED';
    t.generation++;
    for (const wake of t.waiters.splice(0)) wake();
  };
  const send = () => {
    const t: AgentTask = { id: randomUUID(), state: 'TASK_STATE_WORKING', generation: 1, gets: 0, waiters: [] };
    tasks.set(t.id, t);
    return { task: view(t) };
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
    return view(t);
  };
  return { send, getTask, gets };
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

async function serve(
  agent: ReturnType<typeof longPollAgent>,
  base: () => string,
  req: IncomingMessage,
  res: ServerResponse,
) {
  const url = new URL(req.url ?? '/', 'http://agent');
  const body = await readJson(req);
  if (url.pathname === '/.well-known/agent-card.json') {
    const ifaces = [
      { url: `${base()}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${base()}/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ];
    return json(res, {
      name: 'long-poll agent',
      supportedInterfaces: ifaces,
      capabilities: { streaming: false },
      skills: [],
    });
  }
  if (url.pathname === '/rpc') {
    const result =
      body.method === 'SendMessage' ? agent.send() : await agent.getTask(body.params.id, body.params.currentGeneration);
    return json(res, { jsonrpc: '2.0', id: body.id, result });
  }
  if (url.pathname === '/rest/message:send') return json(res, agent.send());
  const get = /^\/rest\/tasks\/([^/]+)$/.exec(url.pathname);
  if (get)
    return json(
      res,
      await agent.getTask(decodeURIComponent(get[1]!), url.searchParams.get('currentGeneration') ?? undefined),
    );
  res.writeHead(404).end();
}

const agents = { hold: longPollAgent('hold'), 'no-hold': longPollAgent('no-hold'), plain: longPollAgent('plain') };
const upstreams: { url: string; close: () => Promise<void> }[] = [];
let gw: RunningGateway;

beforeAll(async () => {
  const config: Record<string, { url: string; timeoutRescue: Record<string, unknown> }> = {};
  for (const [name, agent] of Object.entries(agents)) {
    let url = '';
    const upstream = await scriptedUpstream((req, res) => void serve(agent, () => url, req, res));
    url = upstream.url;
    upstreams.push(upstream);
    config[name] = {
      url,
      timeoutRescue: { enabled: true, clientTimeout: '20s', pollInitial: '10ms', pollMax: '20ms' },
    };
  }
  gw = await startTestGateway(config);
  await pollUntil(
    () => fetch(`${gw.url}/readyz`, within(2000)).then((r) => r.status),
    (s) => s === 200,
    5000,
    'ready',
  );
});
afterAll(async () => {
  await gw?.close();
  await Promise.all(upstreams.map((u) => u.close()));
});

const message = () => ({ messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'go' }] });

/** A blocking SendMessage through the gateway (the rescue takes it); the task state answered. */
async function blockingSend(agent: Mode, binding: 'jsonrpc' | 'rest'): Promise<string> {
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

describe.each(['jsonrpc', 'rest'] as const)('%s: the rescue of a blocking send', (binding) => {
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
