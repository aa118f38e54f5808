// Routing by host on the gRPC binding (issue #16 item 1): the shared gRPC listener (`listen.grpc`)
// routes a call by its `:authority` through `agents.{name}.hosts`. An SDK 1.3.0 client given only
// `http://localhost:<port>/` reads the card at the origin root, whose GRPC interface is
// `localhost:<gRPC port>`, and runs the scenario list over gRPC through the gateway. (The HTTP
// bindings by host: test/routing/hosts.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, constants } from 'node:http2';
import { startPeerV1 } from '../peers/peer-v1.js';
import type { Peer } from '../peers/peer-common.js';
import { clientV1 } from '../peers/clients.js';
import { withDeadline } from '../peers/deadline.js';
import { sdkScenariosV1 } from '../peers/scenarios.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import { decodeGrpcStatus } from '../../src/a2a/grpc/status.js';

let peer: Peer;
let gw: RunningGateway;
let base: string;

beforeAll(async () => {
  peer = await startPeerV1({ stepMs: 30, slowMs: 400, grpc: true });
  gw = await startTestGateway(
    { reviewer: { url: peer.url, hosts: ['localhost'] } },
    { listen: { host: '127.0.0.1', port: 0, grpc: { port: 0 } }, pushNotifications: { allow: ['127.0.0.1/32'] } },
  );
  base = `http://localhost:${new URL(gw.url).port}/`;
});
afterAll(async () => {
  await gw?.close();
  await peer?.close();
});

const client = () => withDeadline(clientV1(base, { transport: 'GRPC' }), 5000, 'card');

describe('gRPC routed by :authority on the shared listener', () => {
  it('serves the card at the origin root with the GRPC interface at localhost:<gRPC port>', async () => {
    const res = await fetch(`${base}.well-known/agent-card.json`, { signal: AbortSignal.timeout(3000) });
    const card = (await res.json()) as { supportedInterfaces: { url: string; protocolBinding: string }[] };
    const urls = Object.fromEntries(card.supportedInterfaces.map((i) => [i.protocolBinding, i.url]));
    expect(urls.GRPC).toBe(`localhost:${gw.grpcPorts.shared}`);
    expect(urls.JSONRPC).toBe(`${base}a2a/jsonrpc`);
  });

  sdkScenariosV1(client, { transport: 'GRPC', pushWebhook: 'http://127.0.0.1:9/hook' });

  it('reached the agent through the gateway', async () => {
    const calls = peer.requests.filter((r) => r.path === '/lf.a2a.v1.A2AService/SendMessage');
    expect(calls.length).toBeGreaterThan(0);
    // X-Forwarded-For is the gateway's mark on every forwarded call.
    expect(calls.every((r) => r.headers['x-forwarded-for'] === '127.0.0.1')).toBe(true);
  });

  it('answers an authority no agent has with NOT_FOUND, and the agent hears nothing', async () => {
    const before = peer.requests.length;
    const session = connect(gw.grpcUrl!);
    try {
      const answer = await new Promise<Record<string, unknown>>((resolve, reject) => {
        const stream = session.request({
          ':method': 'POST',
          ':path': '/lf.a2a.v1.A2AService/GetTask',
          ':authority': `nobody.example:${gw.grpcPorts.shared}`,
          'content-type': 'application/grpc',
          te: 'trailers',
        });
        stream.on('response', (headers, flags) => {
          if (flags & constants.NGHTTP2_FLAG_END_STREAM) resolve(headers);
        });
        stream.on('trailers', resolve);
        stream.on('error', reject);
        stream.end(Buffer.from([0, 0, 0, 0, 0]));
        stream.resume();
        setTimeout(() => reject(new Error('no answer')), 3000).unref();
      });
      const status = decodeGrpcStatus(answer as Record<string, string>);
      expect(status?.code).toBe(5);
      expect(status?.reason).toBe('AGENT_NOT_FOUND');
      expect(peer.requests.length).toBe(before);
    } finally {
      session.close();
    }
  });
});
