/**
 * Pipeline step 3c (src/fleet/placement.ts) and the picker (src/transport/replica-pick.ts) on
 * real upstreams built from a parsed config (their pools never connect here) and the in-memory
 * pins. The exchange is a stand-in holding only what placement reads (its upstream and facts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { closeUpstream, createUpstream, type Upstream } from '../../src/transport/upstream.js';
import { place } from '../../src/fleet/placement.js';
import { MemoryPins, type Pins } from '../../src/fleet/pins.js';
import { StoreUnavailable } from '../../src/tasks/tracker.js';
import { A2AError } from '../../src/errors/a2a-error.js';
import { GatewayError } from '../../src/errors/gateway-error.js';
import type { Exchange } from '../../src/exchange/exchange.js';

const made: Upstream[] = [];
afterEach(async () => void (await Promise.all(made.splice(0).map(closeUpstream))));

function upstreamOf(agentYaml: string): Upstream {
  const config = parseConfig(`agents:\n  a:\n${agentYaml}`, 'gw.yaml', {});
  const upstream = createUpstream('a', config.agents['a']!);
  made.push(upstream);
  return upstream;
}

const THREE = '    upstreams: [http://h:1, http://h:2, http://h:3]\n';
const call = (upstream: Upstream, request: Record<string, unknown> = { operation: 'SendMessage' }) =>
  ({ upstream, request }) as unknown as Exchange;
const urlOf = async (placed: ReturnType<typeof place>) => (await placed).url;

describe('placing a call on a replica', () => {
  it('gives a `url` agent its replica without asking the pins (no promise, no extra turn)', () => {
    const upstream = upstreamOf('    url: http://h:1\n');
    const pins: Pins = {
      pin: () => {},
      close: async () => {},
      replicaOf: () => Promise.reject(new Error('asked')),
    };
    expect(place(call(upstream, { operation: 'GetTask', taskId: 't' }), pins)).toBe(upstream.replicas[0]);
  });

  it('sends new conversations to the least outstanding healthy replica, ties round robin, none drained', async () => {
    const upstream = upstreamOf('    upstreams: [http://h:1, { url: http://h:2, drain: true }, http://h:3]\n');
    const pins = new MemoryPins({ maxTasks: 10, ttlMs: 60_000 });
    const firsts = new Set([await urlOf(place(call(upstream), pins)), await urlOf(place(call(upstream), pins))]);
    expect(firsts).toEqual(new Set(['http://h:1', 'http://h:3']));
    upstream.replicas[0]!.health.outstanding = 5;
    for (let i = 0; i < 4; i++) expect(await urlOf(place(call(upstream), pins))).toBe('http://h:3');
  });

  it('routes by the task pin, then the context pin; an unpinned id is a new conversation', async () => {
    const upstream = upstreamOf(THREE);
    const pins = new MemoryPins({ maxTasks: 10, ttlMs: 60_000 });
    pins.pin('a', 'task', 't1', 'http://h:3');
    pins.pin('a', 'context', 'c1', 'http://h:2');
    pins.pin('a', 'task', 't1', 'http://h:1'); // a pin never changes
    upstream.replicas[2]!.health.outstanding = 99; // affinity wins over load
    for (const operation of ['GetTask', 'CancelTask', 'SubscribeToTask', 'SendMessage'])
      expect(await urlOf(place(call(upstream, { operation, taskId: 't1', contextId: 'c1' }), pins))).toBe('http://h:3');
    expect(await urlOf(place(call(upstream, { operation: 'SendMessage', contextId: 'c1' }), pins))).toBe('http://h:2');
    expect(await urlOf(place(call(upstream, { operation: 'GetTask', taskId: 'never' }), pins))).not.toBe('http://h:3');
  });

  it('answers TASK_REPLICA_GONE for a task on a removed or unhealthy replica; in panic it still goes there', async () => {
    const upstream = upstreamOf(THREE);
    const pins = new MemoryPins({ maxTasks: 10, ttlMs: 60_000 });
    pins.pin('a', 'task', 'old', 'http://h:9');
    pins.pin('a', 'task', 't2', 'http://h:2');
    const gone = await Promise.resolve(place(call(upstream, { operation: 'GetTask', taskId: 'old' }), pins)).catch(
      (e) => e,
    );
    expect(gone).toBeInstanceOf(A2AError);
    expect(gone).toMatchObject({ kind: 'TaskReplicaGone', reason: 'TASK_REPLICA_GONE', notFound: true });
    expect(gone.message).toContain('old');
    upstream.replicas[1]!.health.state = 'unhealthy';
    await expect(Promise.resolve(place(call(upstream, { operation: 'GetTask', taskId: 't2' }), pins))).rejects.toThrow(
      /unhealthy/,
    );
    for (const r of upstream.replicas) r.health.state = 'unhealthy';
    expect(await urlOf(place(call(upstream, { operation: 'GetTask', taskId: 't2' }), pins))).toBe('http://h:2');
  });

  it('refuses a new conversation when every replica is drained; a pinned task still reaches its drained replica', async () => {
    const upstream = upstreamOf('    upstreams: [{ url: http://h:1, drain: true }]\n');
    const pins = new MemoryPins({ maxTasks: 10, ttlMs: 60_000 });
    pins.pin('a', 'task', 't', 'http://h:1');
    await expect(Promise.resolve().then(() => place(call(upstream), pins))).rejects.toMatchObject({
      reason: 'AGENT_DRAINED',
      status: 503,
    });
    expect(await urlOf(place(call(upstream, { operation: 'GetTask', taskId: 't' }), pins))).toBe('http://h:1');
  });

  it('with a store that cannot answer: 503 STATE_UNAVAILABLE (failClosed), or the picker (failOpen)', async () => {
    const down: Pins = {
      pin: () => {},
      replicaOf: () => Promise.reject(new StoreUnavailable(new Error('down'))),
      close: async () => {},
    };
    const closed = upstreamOf(THREE);
    const refused = await Promise.resolve(place(call(closed, { operation: 'GetTask', taskId: 't' }), down)).catch(
      (e) => e,
    );
    expect(refused).toBeInstanceOf(GatewayError);
    expect(refused).toMatchObject({ reason: 'STATE_UNAVAILABLE', status: 503 });
    const open = upstreamOf(`${THREE}    affinity: { failClosed: false }\n`);
    expect(await urlOf(place(call(open, { operation: 'GetTask', taskId: 't' }), down))).toMatch(/^http:\/\/h:[123]$/);
  });
});
