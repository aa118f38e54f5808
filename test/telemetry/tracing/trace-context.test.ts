import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPeerV1 } from '../../peers/peer-v1.js';
import type { Peer } from '../../peers/peer-common.js';
import { startTestGateway } from '../../support/gateway.js';
import type { RunningGateway } from '../../../src/gateway/gateway.js';
import type { ExchangeObserver } from '../../../src/exchange/exchange.js';
import { createTracing } from '../../../src/telemetry/tracing/tracing.js';
import { extractIncoming, injectUpstream, traceIdOf } from '../../../src/telemetry/tracing/trace-context.js';
import { ROOT_CONTEXT, TraceFlags, defaultTextMapSetter, trace } from '@opentelemetry/api';
import { TraceState, W3CTraceContextPropagator } from '@opentelemetry/core';
import { fakeExchange, record } from '../support/records.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = `00-${TRACE}-00f067aa0ba902b7-01`;

describe('W3C trace context helpers', () => {
  it('reads the caller context and replaces traceparent/tracestate in the upstream headers', () => {
    const ctx = trace.getSpanContext(extractIncoming({ traceparent: PARENT, tracestate: 'vendor=1' }))!;
    expect(ctx).toMatchObject({ traceId: TRACE, spanId: '00f067aa0ba902b7', isRemote: true });
    const headers = ['Traceparent', PARENT, 'a2a-version', '1.0', 'tracestate', 'vendor=1'];
    injectUpstream(headers, { ...ctx, spanId: 'aaaaaaaaaaaaaaaa' });
    expect(headers).toEqual([
      'a2a-version',
      '1.0',
      'traceparent',
      `00-${TRACE}-aaaaaaaaaaaaaaaa-01`,
      'tracestate',
      'vendor=1',
    ]);
  });

  it('writes the same headers as the SDK propagator, sampled or not, with or without tracestate', () => {
    const propagator = new W3CTraceContextPropagator();
    for (const traceFlags of [TraceFlags.NONE, TraceFlags.SAMPLED]) {
      for (const traceState of [undefined, new TraceState('a=1,b=2')]) {
        const span = { traceId: TRACE, spanId: 'bbbbbbbbbbbbbbbb', traceFlags, traceState };
        const ours: string[] = ['x-other', '1'];
        injectUpstream(ours, span);
        const sdk: Record<string, string> = {};
        propagator.inject(trace.setSpanContext(ROOT_CONTEXT, span), sdk, defaultTextMapSetter);
        expect(
          Object.fromEntries(
            ours.reduce<string[][]>((pairs, v, i) => (i % 2 ? pairs : [...pairs, [v, ours[i + 1]!]]), []),
          ),
        ).toEqual({ 'x-other': '1', ...sdk });
      }
    }
    expect(extractIncoming({})).toBe(ROOT_CONTEXT);
  });

  it('gives the caller trace id for logs when the gateway does not trace, and none for garbage', () => {
    expect(traceIdOf(fakeExchange(record(), { traceparent: PARENT }))).toBe(TRACE);
    expect(traceIdOf(fakeExchange(record(), { traceparent: '00-zzzz-1-01' }))).toBeUndefined();
    expect(traceIdOf(fakeExchange(record()))).toBeUndefined();
  });
});

describe('with tracing off', () => {
  let peer: Peer;
  let gateway: RunningGateway;
  const logged: Array<string | undefined> = [];
  const logProbe: ExchangeObserver = { onFinish: (exchange) => void logged.push(traceIdOf(exchange)) };
  const tracing = createTracing(undefined);

  beforeAll(async () => {
    peer = await startPeerV1();
    gateway = await startTestGateway({ reviewer: { url: peer.url } }, {}, [tracing.observer, logProbe]);
  });
  afterAll(async () => {
    await gateway?.close();
    await peer?.close();
  });

  it('adds no hooks, passes the caller trace context to the agent unchanged, and still logs its trace id', async () => {
    expect(tracing.enabled).toBe(false);
    expect(Object.keys(tracing.observer)).toEqual([]);
    const since = peer.requests.length;
    const res = await fetch(`${gateway.url}/agents/reviewer/a2a/jsonrpc`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'a2a-version': '1.0',
        traceparent: PARENT,
        tracestate: 'vendor=1',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'unknown' } }),
      signal: AbortSignal.timeout(5000),
    });
    await res.text();
    const seen = peer.requests.slice(since).filter((r) => r.method === 'POST'); // not the gateway's card fetches
    expect(seen).toHaveLength(1);
    expect(seen[0]!.headers).toMatchObject({ traceparent: PARENT, tracestate: 'vendor=1' });
    expect(logged.at(-1)).toBe(TRACE);
  });
});
