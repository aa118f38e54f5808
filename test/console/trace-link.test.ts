/**
 * With tracing on, an exchange's detail in the console carries the gateway's own trace id (the
 * one its spans were exported with), and the settings carry `console.traceUrl` for the page to
 * link it. A real SDK agent, a real OTLP receiver, the built-in exporter thread.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { parseConfig } from '../../src/config/load.js';
import { startGateway, type RunningGateway } from '../../src/gateway/gateway.js';
import type { ConsoleSettings, ExchangeDetail } from '../../src/console/api-types.js';
import { startPeerV1 } from '../peers/peer-v1.js';
import type { Peer } from '../peers/peer-common.js';
import { startOtlpReceiver, type OtlpReceiver } from '../telemetry/support/otlp-receiver.js';
import { pollUntil } from '../peers/deadline.js';
import { V1, rpc, wireMessageV1 } from '../access/support/harness.js';

let peer: Peer;
let receiver: OtlpReceiver;
let gateway: RunningGateway;

beforeAll(async () => {
  [peer, receiver] = await Promise.all([startPeerV1(), startOtlpReceiver()]);
  const config = parseConfig(
    JSON.stringify({
      listen: { host: '127.0.0.1', port: 0 },
      admin: { listen: { host: '127.0.0.1', port: 0 } },
      console: { traceUrl: 'https://jaeger.example.com/trace/{traceId}' },
      agents: { a: { url: peer.url } },
    }),
    'test-config',
    {},
  );
  gateway = await startGateway(config, {
    logger: pino({ level: 'silent' }),
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '20' },
  });
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([peer?.close(), receiver?.close()]);
});

describe('console trace links', () => {
  it('an exchange’s detail names the trace its spans were exported with', async () => {
    const res = await fetch(`${gateway.url}/agents/a/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...V1 },
      body: JSON.stringify(
        rpc('SendMessage', { message: { ...wireMessageV1('what is A2A?'), messageId: 'trace-me' } }),
      ),
    });
    await res.arrayBuffer();
    const listed = (await (await fetch(`${gateway.adminUrl}/exchanges?messageId=trace-me`)).json()) as {
      exchanges: Array<{ id: string; traceId?: string }>;
    };
    const id = listed.exchanges[0]!.id;
    const detail = (await (await fetch(`${gateway.adminUrl}/console/api/exchanges/${id}`)).json()) as ExchangeDetail;
    const spans = await pollUntil(
      async () => receiver.spans.filter((s) => s.attributes['a2a.message.id'] === 'trace-me'),
      (found) => found.length > 0,
      10_000,
      'the exported span',
    );
    expect(detail.summary.traceId).toBe(spans[0]!.traceId);
    expect(listed.exchanges[0]!.traceId).toBe(spans[0]!.traceId);
    const settings = (await (await fetch(`${gateway.adminUrl}/console/api/config`)).json()) as ConsoleSettings;
    expect(settings.traceUrl).toBe('https://jaeger.example.com/trace/{traceId}');
  });
});
