/** Exchange-shaped objects with a hand-written record, for driving observers without sockets. */
import type { Exchange } from '../../../src/exchange/exchange.js';
import { packExchange } from '../../../src/telemetry/tracing/exchange-pack.js';
import type { A2AFacts, ExchangeRecord } from '../../../src/exchange/record.js';

export function record(partial: Partial<ExchangeRecord> = {}): ExchangeRecord {
  return {
    id: 'test-1',
    agent: 'reviewer',
    httpMethod: 'POST',
    path: '/',
    startedAt: Date.now() - 120,
    status: 200,
    bytesIn: 100,
    bytesOut: 200,
    gatewayKeepalives: 0,
    durationMs: 120,
    outcome: 'complete',
    findings: [],
    ...partial,
  };
}

export function facts(partial: Partial<A2AFacts> = {}): A2AFacts {
  return { binding: 'jsonrpc', version: '1.0', operation: 'SendMessage', kind: 'message', partial: false, ...partial };
}

/** Only what observers read: the record, the state map and the request headers. */
export function fakeExchange(rec: ExchangeRecord, headers: Record<string, string> = {}): Exchange {
  return {
    record: rec,
    state: new Map(),
    call: { headers, target: `/agents/${rec.agent}${rec.path}` },
  } as unknown as Exchange;
}

/** One exchange packed for the export thread, as the request thread hands it over (exchange-pack.ts). */
export function packedExchange() {
  return packExchange(record(), {
    traceId: 'ab'.repeat(16),
    serverSpanId: 'cd'.repeat(8),
    parent: undefined,
    startMs: Date.now(),
    endMs: Date.now(),
    urlPath: '/',
    client: undefined,
    events: [],
    eventsDropped: 0,
  });
}
