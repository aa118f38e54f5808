/**
 * Spans of gRPC exchanges (issue #16: "the same … spans … as the other two"): the real OTLP/HTTP
 * exporter sends the gateway's spans to a receiver on loopback while the SDK 1.3.0 gRPC client
 * talks to the SDK's gRPC server through the gateway; the gateway's traceparent reaches the agent
 * as gRPC metadata.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPeerV1 } from '../peers/peer-v1.js';
import type { Peer } from '../peers/peer-common.js';
import { clientV1 } from '../peers/clients.js';
import { withDeadline } from '../peers/deadline.js';
import { asTask } from '../peers/inspect.js';
import { senderV1 } from '../peers/scenarios.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import { createTracing, type Tracing } from '../../src/telemetry/tracing/tracing.js';
import { tracingOptionsFromEnv } from '../../src/telemetry/tracing/tracing-config.js';
import { startOtlpReceiver, type OtlpReceiver } from '../telemetry/support/otlp-receiver.js';

const SERVER = 2;
const CLIENT = 3;

let peer: Peer;
let receiver: OtlpReceiver;
let tracing: Tracing;
let gw: RunningGateway;

beforeAll(async () => {
  [peer, receiver] = await Promise.all([startPeerV1({ stepMs: 20, grpc: true }), startOtlpReceiver()]);
  const { options } = tracingOptionsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
  tracing = createTracing(options, { serviceVersion: '9.9.9' });
  gw = await startTestGateway({ reviewer: { url: peer.url, grpc: { listen: { port: 0 } } } }, {}, [tracing.observer]);
});
afterAll(async () => {
  await gw?.close();
  await tracing?.shutdown();
  await Promise.all([peer?.close(), receiver?.close()]);
});

describe('spans of gRPC exchanges', () => {
  it('a server and a client span tagged binding grpc, and the traceparent passed on as metadata', async () => {
    const client = () => withDeadline(clientV1(`${gw.url}/agents/reviewer/`, { transport: 'GRPC' }), 5000, 'card');
    const since = peer.requests.length;
    const task = asTask(await senderV1(client)('traced over grpc'));
    await withDeadline(tracing.forceFlush(), 5000, 'span export');

    const server = receiver.spans.find((s) => s.kind === SERVER && s.attributes['a2a.task.id'] === task.id);
    expect(server?.attributes).toMatchObject({
      'a2a.method.name': 'SendMessage',
      'a2a.gateway.binding': 'grpc',
      'a2a.gateway.kind': 'task',
      'gen_ai.agent.name': 'reviewer',
    });
    const clientSpan = receiver.spans.find((s) => s.kind === CLIENT && s.parentSpanId === server!.spanId);
    expect(clientSpan).toBeDefined();
    const sent = peer.requests.slice(since).find((r) => r.path === '/lf.a2a.v1.A2AService/SendMessage');
    expect(sent?.headers.traceparent).toBe(`00-${server!.traceId}-${clientSpan!.spanId}-01`);
  });
});
