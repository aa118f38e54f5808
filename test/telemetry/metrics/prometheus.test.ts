/**
 * A real Prometheus scrapes the gateway's metrics (on its admin listener, with the admin token
 * from a credentials file, as docs/operations.md "Metrics" tells operators) while real SDK peers and clients run a
 * scenario through it; then every PromQL expression of the Grafana dashboard and of the alert
 * rules goes through Prometheus's HTTP API. promtool checks the rule file and the /metrics output.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { startPeerV1 } from '../../peers/peer-v1.js';
import type { Peer } from '../../peers/peer-common.js';
import { clientV1, sendRequestV1, userMessageV1 } from '../../peers/clients.js';
import { collect, within, withDeadline } from '../../peers/deadline.js';
import { asMessage, asTask } from '../../peers/inspect.js';
import { startTestGateway } from '../../support/gateway.js';
import type { RunningGateway } from '../../../src/gateway/gateway.js';
import { promtool, startPrometheus, waitFor, type Prometheus, type QueryResult } from '../support/prometheus.js';

const DASHBOARD = fileURLToPath(new URL('../../../dashboards/a2a-gateway.json', import.meta.url));
const ALERTS = fileURLToPath(new URL('../../../dashboards/a2a-alerts.yml', import.meta.url));
const ALERT_TESTS = fileURLToPath(new URL('../../../dashboards/a2a-alerts.test.yml', import.meta.url));

interface Panel {
  type: string;
  title: string;
  targets?: Array<{ expr: string }>;
}

/** Grafana's variables, as Grafana would fill them for "All agents" over the last minutes. */
function grafanaExpr(expr: string): string {
  const out = expr
    .replaceAll('$__rate_interval', '1m')
    .replaceAll('$__range', '5m')
    .replaceAll('$__interval', '15s')
    .replaceAll('$agent', '.*');
  expect(out, 'an unknown Grafana variable').not.toContain('$');
  return out;
}

let peer: Peer;
let gateway: RunningGateway;
/** The same peer behind `auth` (API keys, a JWT issuer), rules and a rate limit; scraped too. */
let locked: RunningGateway;
let prometheus: Prometheus;
const ADMIN_TOKEN = randomUUID();

/** Both gateways' /metrics as they are now. */
async function exposition(): Promise<string> {
  const texts = await Promise.all(
    [gateway, locked].map(async (gw) => {
      const res = await fetch(gw.metricsUrl!, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect(res.status).toBe(200);
      return res.text();
    }),
  );
  return texts.join('\n');
}

/** What the gateways' own /metrics say now: every sample of `name` added up. */
async function gatewayTotal(name: string): Promise<number> {
  const sample = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`);
  return (await exposition())
    .split('\n')
    .map((line) => sample.exec(line)?.[1])
    .reduce((n, value) => n + (value === undefined ? 0 : Number(value)), 0);
}

const requestsSeenByGateway = () => gatewayTotal('a2a_requests_total');

async function scalar(expr: string): Promise<number | undefined> {
  const r = await prometheus.query(expr);
  const v = r.data?.result[0]?.value[1];
  return v === undefined ? undefined : Number(v);
}

/** Waits until Prometheus has scraped everything the gateway counted so far. */
async function ingested(): Promise<void> {
  const total = await requestsSeenByGateway();
  await waitFor(
    async () => (await scalar('sum(a2a_requests_total)')) === total,
    15_000,
    `Prometheus sees ${total} requests`,
  );
}

const rpc = (method: string, params: unknown) => JSON.stringify({ jsonrpc: '2.0', id: randomUUID(), method, params });
const userMsg = (text: string) => ({ message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] } });

const PLANNER_KEY = 'planner-key-0123456789';
const INTRUDER_KEY = 'intruder-key-0123456789';
const FLOODER_KEY = 'flooder-key-0123456789';
/** A JWT whose issuer's key set cannot be fetched (the `locked` gateway's jwksUrl answers nothing). */
const UNVERIFIABLE_JWT = [
  { alg: 'RS256', kid: 'k1', typ: 'JWT' },
  { sub: 'someone', iss: 'https://idp.test', aud: 'a2a-gateway', exp: Math.floor(Date.now() / 1000) + 3600 },
]
  .map((part) => Buffer.from(JSON.stringify(part)).toString('base64url'))
  .concat('c2ln')
  .join('.');

/**
 * Calls the `locked` gateway's access control refuses: no or a wrong credential, an unverifiable
 * JWT, an operation the rules keep from the caller, another caller's task, and more calls than
 * the rate limit lets through.
 */
async function accessScenario(): Promise<void> {
  const call = async (credentials: Record<string, string>, method: string, params: unknown) => {
    const res = await fetch(`${locked.url}/agents/locked/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...credentials },
      body: rpc(method, params),
      signal: AbortSignal.timeout(5000),
    });
    return { status: res.status, body: (await res.json()) as { result?: { task?: { id: string } } } };
  };
  expect((await call({}, 'SendMessage', userMsg('what is 6x7?'))).status).toBe(401);
  expect((await call({ 'x-api-key': 'not-a-key-0123456789' }, 'SendMessage', userMsg('hi'))).status).toBe(401);
  expect((await call({ authorization: `Bearer ${UNVERIFIABLE_JWT}` }, 'SendMessage', userMsg('hi'))).status).toBe(401);
  const planned = await call({ 'x-api-key': PLANNER_KEY }, 'SendMessage', userMsg('process this'));
  const taskId = planned.body.result!.task!.id;
  const intruder = { 'x-api-key': INTRUDER_KEY };
  expect((await call(intruder, 'CancelTask', { id: taskId })).status).toBe(403);
  // Another caller's task: the protocol's TaskNotFound, as if it did not exist.
  await call(intruder, 'GetTask', { id: taskId });
  const flood = [];
  for (let i = 0; i < 6; i++)
    flood.push((await call({ 'x-api-key': FLOODER_KEY }, 'SendMessage', userMsg('hi'))).status);
  expect(flood).toContain(429);
}

/** One pass of traffic that every dashboard panel should show. */
async function scenario(): Promise<void> {
  const client = await withDeadline(
    clientV1(`${gateway.url}/agents/reviewer/`, { transport: 'JSONRPC' }),
    5000,
    'card via gateway',
  );
  const send = (text: string, opts: { taskId?: string; returnImmediately?: boolean } = {}) =>
    client.sendMessage(sendRequestV1(userMessageV1(text, { taskId: opts.taskId }), opts), within(5000));

  asMessage(await send('what is 6x7?'));
  asTask(await send('process this'));
  const waiting = asTask(await send('needs input'));
  asTask(await send('here are the details', { taskId: waiting.id }));
  asTask(await send('sleep:20000 a long job', { returnImmediately: true }));
  // A blocking send the timeout rescue handles (the `rescued` agent has timeoutRescue on).
  const rescued = await withDeadline(
    clientV1(`${gateway.url}/agents/rescued/`, { transport: 'JSONRPC' }),
    5000,
    'card via gateway',
  );
  asTask(await rescued.sendMessage(sendRequestV1(userMessageV1('process this')), within(5000)));
  await collect(client.sendMessageStream(sendRequestV1(userMessageV1('stream this')), within(5000)), 5000, 'stream');

  const post = (agent: string, body: string, signal = AbortSignal.timeout(5000)) =>
    fetch(`${gateway.url}/agents/${agent}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body,
      signal,
    });
  // An A2A error (unknown method: JSON-RPC -32601) and an unreachable agent.
  await (await post('reviewer', rpc('NoSuchMethod', {}))).text();
  expect((await post('gone', rpc('GetTask', { id: 'x' }))).status).toBe(502);
  // A webhook at a link-local address (cloud metadata): the push guard, on by default, refuses it.
  await (
    await post(
      'reviewer',
      rpc('SendMessage', {
        ...userMsg('notify me'),
        configuration: { taskPushNotificationConfig: { url: 'http://169.254.169.254/hook' } },
      }),
    )
  ).text();
  await accessScenario();

  // A client that hangs up after the first event of a long stream.
  const abort = new AbortController();
  const before = await gatewayTotal('a2a_client_aborts_total');
  const res = await post('reviewer', rpc('SendStreamingMessage', userMsg('sleep:5000 hang up on me')), abort.signal);
  await withDeadline(res.body!.getReader().read(), 5000, 'first stream chunk');
  abort.abort();
  await waitFor(async () => (await gatewayTotal('a2a_client_aborts_total')) > before, 5000, 'client abort counted');
}

beforeAll(async () => {
  peer = await startPeerV1({ stepMs: 20 });
  gateway = await startTestGateway(
    {
      reviewer: { url: peer.url },
      gone: { url: 'http://127.0.0.1:1' },
      rescued: { url: peer.url, timeoutRescue: { enabled: true, clientTimeout: '4s' } },
      // Two replicas, one dead: the replica panels show one healthy, one failing its checks.
      replicas: {
        upstreams: [peer.url, 'http://127.0.0.1:1'],
        health: { interval: '200ms', timeout: '200ms', unhealthyThreshold: 1 },
      },
    },
    { admin: { listen: { host: '127.0.0.1', port: 0 }, token: ADMIN_TOKEN } },
  );
  locked = await startTestGateway(
    {
      locked: {
        url: peer.url,
        access: { methods: { CancelTask: ['planner'] } },
        rateLimit: { requests: 5, per: '1m' },
      },
    },
    {
      admin: { listen: { host: '127.0.0.1', port: 0 }, token: ADMIN_TOKEN },
      auth: {
        apiKeys: { planner: { key: PLANNER_KEY }, intruder: { key: INTRUDER_KEY }, flooder: { key: FLOODER_KEY } },
        jwt: { issuer: 'https://idp.test', audience: 'a2a-gateway', jwksUrl: 'http://127.0.0.1:1/jwks.json' },
      },
    },
  );
  const scrape = new URL(gateway.metricsUrl!);
  prometheus = await startPrometheus({
    targets: [scrape.host, new URL(locked.metricsUrl!).host],
    metricsPath: scrape.pathname,
    bearerToken: ADMIN_TOKEN,
    ruleFiles: [ALERTS],
  });
  await waitFor(async () => (await scalar('sum(up{job="a2a-gateway"})')) === 2, 15_000, 'first scrapes');
  // Two rounds with a scrape between them, so every counter and bucket has grown between two
  // samples and rate() has something to show.
  await scenario();
  await ingested();
  await scenario();
  await ingested();
}, 60_000);

afterAll(async () => {
  await prometheus?.close();
  await Promise.all([gateway?.close(), locked?.close()]);
  await peer?.close();
});

describe('the Grafana dashboard against a real Prometheus', () => {
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as {
    panels: Panel[];
    templating: { list: Array<{ name: string; definition?: string }> };
  };
  const panels = dashboard.panels.filter((p) => p.type !== 'row');

  it('has the datasource and agent variables', async () => {
    const names = dashboard.templating.list.map((v) => v.name);
    expect(names).toEqual(['datasource', 'agent']);
    expect(dashboard.templating.list[1]!.definition).toBe('label_values(a2a_requests_total, agent)');
    const res = await fetch(
      `${prometheus.url}/api/v1/label/agent/values?${new URLSearchParams({ 'match[]': 'a2a_requests_total' })}`,
    );
    expect(((await res.json()) as { data: string[] }).data.sort()).toEqual(['gone', 'locked', 'rescued', 'reviewer']);
  });

  it.each(panels.map((p) => [p.title, p] as const))(
    '%s: every query parses and returns data',
    async (_title, panel) => {
      expect(panel.targets?.length).toBeGreaterThan(0);
      const results: QueryResult[] = [];
      for (const target of panel.targets!) {
        const result = await prometheus.query(grafanaExpr(target.expr));
        expect(result.status, `${target.expr}: ${result.error}`).toBe('success');
        results.push(result);
      }
      const values = results.flatMap((r) => r.data!.result.map((s) => Number(s.value[1])));
      expect(values.filter(Number.isFinite).length, 'samples with a value').toBeGreaterThan(0);
    },
  );

  it('the access-control panels show denials by reason, rate-limited calls and refused webhooks', async () => {
    const query = async (title: string) => {
      const panel = panels.find((p) => p.title === title)!;
      return (await prometheus.query(grafanaExpr(panel.targets![0]!.expr))).data!.result;
    };
    const reasons = (await query('Auth denials by reason')).map((s) => s.metric.reason).sort();
    expect(reasons).toEqual(['forbidden', 'invalid-key', 'jwks-unavailable', 'missing', 'not-owner']);
    const limited = (await query('Rate-limited requests by agent')).filter((s) => Number(s.value[1]) > 0);
    expect(limited.map((s) => s.metric.agent)).toEqual(['locked']);
    expect((await query('Push webhooks refused by rule')).map((s) => s.metric.rule)).toEqual(['push-url-address']);
  });

  it('no series carries a principal, as a label or a value', async () => {
    const res = await fetch(`${prometheus.url}/api/v1/labels`);
    expect(((await res.json()) as { data: string[] }).data).not.toContain('principal');
    const text = await exposition();
    for (const principal of ['planner', 'intruder', 'flooder', 'someone']) expect(text).not.toContain(principal);
  });

  it('the headline shows message and task traffic for the agent', async () => {
    const headline = panels[0]!;
    expect(headline.title).toMatch(/message vs task/);
    const result = await prometheus.query(grafanaExpr(headline.targets![0]!.expr));
    const byKind = Object.fromEntries(
      result.data!.result.filter((s) => s.metric.agent === 'reviewer').map((s) => [s.metric.kind, Number(s.value[1])]),
    );
    expect(byKind.message).toBeGreaterThan(0);
    expect(byKind.task).toBeGreaterThan(0);
  });
});

describe('the alert rules against a real Prometheus', () => {
  const rules = (
    parseYaml(readFileSync(ALERTS, 'utf8')) as { groups: Array<{ rules: Array<{ alert: string; expr: string }> }> }
  ).groups.flatMap((g) => g.rules);

  it('covers error ratio, stuck tasks, input-required backlog, findings, unreachable agents, denials, failed reloads, a shared store down, an agent card unavailable and an unhealthy replica', () => {
    expect(rules.map((r) => r.alert)).toEqual([
      'A2AAgentErrorRatio',
      'A2ATaskStuckWorking',
      'A2AInputRequiredBacklog',
      'A2AConformanceFinding',
      'A2AUpstreamUnreachable',
      'A2AAuthDenialsHigh',
      'A2AJwksUnavailable',
      'A2AConfigReloadFailed',
      'A2AStateStoreDown',
      'A2AAgentCardUnavailable',
      'A2AReplicaUnhealthy',
    ]);
  });

  it.each(rules.map((r) => [r.alert, r.expr] as const))('%s parses', async (_name, expr) => {
    const result = await prometheus.query(expr);
    expect(result.status, result.error).toBe('success');
  });

  it('Prometheus loaded every rule in good health', async () => {
    const res = await fetch(`${prometheus.url}/api/v1/rules`);
    const body = (await res.json()) as {
      data: { groups: Array<{ rules: Array<{ name: string; health: string; lastError?: string }> }> };
    };
    const loaded = body.data.groups.flatMap((g) => g.rules);
    expect(loaded.map((r) => r.name).sort()).toEqual(rules.map((r) => r.alert).sort());
    await waitFor(
      async () => {
        const r = (await (await fetch(`${prometheus.url}/api/v1/rules`)).json()) as typeof body;
        return r.data.groups.flatMap((g) => g.rules).every((rule) => rule.health === 'ok');
      },
      10_000,
      'rules evaluated',
    );
  });

  it('the unreachable-agent expression picks out the dead agent', async () => {
    const expr = rules.find((r) => r.alert === 'A2AUpstreamUnreachable')!.expr;
    const result = await prometheus.query(expr);
    expect(result.data!.result.map((s) => s.metric.agent)).toEqual(['gone']);
  });

  it('the JWKS expression picks out the agent whose tokens could not be checked', async () => {
    const expr = rules.find((r) => r.alert === 'A2AJwksUnavailable')!.expr;
    const result = await prometheus.query(expr);
    expect(result.data!.result.map((s) => s.metric.agent)).toEqual(['locked']);
  });

  it('promtool check rules passes, and the rule unit tests pass', () => {
    const check = promtool(['check', 'rules', ALERTS]);
    expect(check.status, check.output).toBe(0);
    const test = promtool(['test', 'rules', ALERT_TESTS]);
    expect(test.status, test.output).toBe(0);
  });
});

describe("the gateway's /metrics output", () => {
  it('passes promtool check metrics', async () => {
    const res = await fetch(gateway.metricsUrl!, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    const text = await res.text();
    expect(text).toContain('a2a_requests_total{');
    expect(text).toContain('process_cpu_user_seconds_total');
    const check = promtool(['check', 'metrics'], text);
    expect(check.status, check.output).toBe(0);
  });
});
