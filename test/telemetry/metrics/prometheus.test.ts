/**
 * A real Prometheus scrapes the gateway's metrics (on its admin listener, with the admin token
 * from a credentials file, as README tells operators) while real SDK peers and clients run a
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
import type { RunningGateway } from '../../../src/gateway.js';
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
let prometheus: Prometheus;
const ADMIN_TOKEN = randomUUID();

/** What the gateway's own /metrics says now: every sample of `name` added up. */
async function gatewayTotal(name: string): Promise<number> {
  const res = await fetch(gateway.metricsUrl!, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  expect(res.status).toBe(200);
  const sample = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`);
  return (await res.text())
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
    },
    { admin: { listen: { host: '127.0.0.1', port: 0 }, token: ADMIN_TOKEN } },
  );
  const scrape = new URL(gateway.metricsUrl!);
  prometheus = await startPrometheus({
    targets: [scrape.host],
    metricsPath: scrape.pathname,
    bearerToken: ADMIN_TOKEN,
    ruleFiles: [ALERTS],
  });
  await waitFor(async () => (await scalar('up{job="a2a-gateway"}')) === 1, 15_000, 'first scrape');
  // Two rounds with a scrape between them, so every counter and bucket has grown between two
  // samples and rate() has something to show.
  await scenario();
  await ingested();
  await scenario();
  await ingested();
}, 60_000);

afterAll(async () => {
  await prometheus?.close();
  await gateway?.close();
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
    expect(((await res.json()) as { data: string[] }).data.sort()).toEqual(['gone', 'rescued', 'reviewer']);
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

  it('covers error ratio, stuck tasks, input-required backlog, findings and unreachable agents', () => {
    expect(rules.map((r) => r.alert)).toEqual([
      'A2AAgentErrorRatio',
      'A2ATaskStuckWorking',
      'A2AInputRequiredBacklog',
      'A2AConformanceFinding',
      'A2AUpstreamUnreachable',
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
