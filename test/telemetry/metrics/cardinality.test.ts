/**
 * Label cardinality under hostile traffic through a real gateway: unknown JSON-RPC methods,
 * random paths and HTTP methods, random task, context and message ids and random agent names add
 * no series once each kind of request has been seen once.
 */
import { STORE_OPERATIONS } from '../../../src/state/store-status.js';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { startPeerV1 } from '../../peers/peer-v1.js';
import type { Peer } from '../../peers/peer-common.js';
import { startTestGateway } from '../../support/gateway.js';
import type { RunningGateway } from '../../../src/gateway/gateway.js';
import { createMetrics } from '../../../src/telemetry/metrics/metrics.js';
import { labelValues, samples } from '../support/registry.js';
import { NO_STATE, OTHER } from '../../../src/telemetry/metrics/labels.js';
import { RELOAD_RESULTS } from '../../../src/telemetry/metrics/metric-names.js';
import { BINDINGS, OPERATIONS, PROTOCOL_VERSIONS } from '../../../src/a2a/operations.js';
import { TASK_STATES } from '../../../src/a2a/task-state.js';
import { RULE_IDS } from '../../../src/a2a/findings.js';
import { GATEWAY_VERSION } from '../../../src/version.js';
import { GATEWAY_ERROR_REASONS } from '../../../src/errors/gateway-error.js';
import {
  ACCESS_DENIALS,
  EXCHANGE_KINDS,
  PUSH_REFUSALS,
  RESCUE_OUTCOMES,
  RESCUE_STRATEGIES,
  STREAM_EVENT_KINDS,
} from '../../../src/exchange/record.js';

let peer: Peer;
let gateway: RunningGateway;
const registry = new Registry();

beforeAll(async () => {
  peer = await startPeerV1({ stepMs: 5 });
  const metrics = createMetrics(registry, { agents: ['reviewer'], processMetrics: false });
  gateway = await startTestGateway({ reviewer: { url: peer.url } }, { tasks: { maxTracked: 50 } }, [metrics.observer]);
  metrics.trackTasks(gateway.tracker);
});

afterAll(async () => {
  await gateway?.close();
  await peer?.close();
});

const id = () => randomUUID();

/** Every value each label may take: the closed sets labels.ts draws from, plus `other` / `none`. */
const closedSets: Record<string, ReadonlySet<string>> = Object.fromEntries(
  Object.entries({
    agent: ['reviewer'],
    method: OPERATIONS,
    binding: BINDINGS,
    // `version` is also a2a_gateway_build_info's (the gateway's own, one value per process).
    version: [...PROTOCOL_VERSIONS, GATEWAY_VERSION],
    node_version: [process.versions.node],
    kind: EXCHANGE_KINDS,
    state: [...TASK_STATES, NO_STATE],
    event: STREAM_EVENT_KINDS,
    rule: [...RULE_IDS, ...PUSH_REFUSALS],
    reason: [...GATEWAY_ERROR_REASONS, ...ACCESS_DENIALS],
    outcome: RESCUE_OUTCOMES,
    strategy: RESCUE_STRATEGIES,
    operation: STORE_OPERATIONS,
    result: RELOAD_RESULTS,
  }).map(([label, values]) => [label, new Set<string>([...values, OTHER])]),
);

/** One request of each hostile kind, each with fresh random names and ids. */
function hostileRequests(): Array<() => Promise<Response>> {
  const base = `${gateway.url}/agents`;
  const rpc = (body: unknown) => () =>
    fetch(`${base}/reviewer/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(5000),
    });
  return [
    rpc({ jsonrpc: '2.0', id: id(), method: `tasks/${id()}`, params: {} }),
    rpc({ jsonrpc: '2.0', id: id(), method: 'GetTask', params: { id: id() } }),
    rpc({
      jsonrpc: '2.0',
      id: id(),
      method: 'SendMessage',
      params: { message: { messageId: id(), contextId: id(), role: 'ROLE_USER', parts: [{ text: 'reject' }] } },
    }),
    () =>
      fetch(`${base}/reviewer/a2a/rest/tasks/${id()}`, {
        headers: { 'a2a-version': '1.0' },
        signal: AbortSignal.timeout(5000),
      }),
    () => fetch(`${base}/reviewer/${id()}/${id()}?q=${id()}`, { signal: AbortSignal.timeout(5000) }),
    () => fetch(`${base}/reviewer/${id()}`, { method: 'PATCH', body: id(), signal: AbortSignal.timeout(5000) }),
    () => fetch(`${base}/${id()}/a2a/jsonrpc`, { method: 'POST', body: '{}', signal: AbortSignal.timeout(5000) }),
  ];
}

async function send(requests: Array<() => Promise<Response>>): Promise<void> {
  for (let i = 0; i < requests.length; i += 8) {
    await Promise.all(requests.slice(i, i + 8).map(async (r) => void (await (await r()).arrayBuffer())));
  }
}

describe('series under a flood of random names and ids', () => {
  it('stay bounded, and no id, path or unknown name becomes a label value', async () => {
    await send(hostileRequests());
    const before = (await samples(registry)).length;
    await send(Array.from({ length: 40 }, hostileRequests).flat());
    const after = await samples(registry);
    expect(after.length).toBe(before);

    const requests = after.filter((s) => s.name === 'a2a_requests_total').reduce((n, s) => n + s.value, 0);
    expect(requests).toBe(41 * 6); // the unknown agent never opens an exchange
    const values = await labelValues(registry);
    expect([...values.get('agent')!]).toEqual(['reviewer']);
    // Each value is a member of its label's closed set (a size cap would break as sets grow).
    for (const [label, set] of values) {
      for (const v of set) expect(closedSets[label]?.has(v), `${label}="${v}"`).toBe(true);
    }
  });
});
