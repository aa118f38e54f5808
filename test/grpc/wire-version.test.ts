/**
 * The agent's gRPC interface is chosen by the version the call is written in — its rpc's package
 * (`/lf.a2a.v1.…` is 1.0, `/a2a.v1.…` is 0.3: RequestFacts.wireVersion) — not by an `a2a-version`
 * header that says otherwise: the message is encoded in the package's schema, and only the
 * interface of that version can read it (wire-reference §6.1). The agent's card lists a 1.0 gRPC
 * interface (the official SDK agent) and a 0.3 one (nothing listening).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPeerV1 } from '../peers/peer-v1.js';
import type { Peer } from '../peers/peer-common.js';
import { deadUrl, scriptedUpstream } from '../support/scripted-upstream.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import { SERVICE, getTask, h2, rawCall } from './support/raw-grpc.js';

let peer: Peer;
let cardHost: { url: string; close: () => Promise<void> };
let gw: RunningGateway;

beforeAll(async () => {
  peer = await startPeerV1({ grpc: true });
  const dead = (await deadUrl()).replace(/^http:\/\//, '');
  const grpc10 = peer.grpcUrl!.replace(/^\w+:\/\//, '');
  let base = '';
  cardHost = await scriptedUpstream((req, res) => {
    const card = {
      name: 'hybrid',
      description: 'one gRPC interface per version',
      version: '1.0.0',
      supportedInterfaces: [
        { url: `${base}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: dead, protocolBinding: 'GRPC', protocolVersion: '0.3' },
        { url: grpc10, protocolBinding: 'GRPC', protocolVersion: '1.0' },
      ],
      capabilities: { streaming: true },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [],
    };
    res.writeHead(req.url?.includes('agent-card') ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(card));
  });
  base = cardHost.url;
  gw = await startTestGateway({ hybrid: { url: cardHost.url, grpc: { listen: { port: 0 } } } });
});
afterAll(async () => {
  await gw?.close();
  await Promise.all([cardHost?.close(), peer?.close()]);
});

describe("the agent's gRPC interface for a call", () => {
  it('is the one of its rpc package’s version, whatever a2a-version says', async () => {
    const before = peer.requests.filter((r) => r.path.startsWith('/lf.a2a.')).length;
    const session = await h2(gw.grpcPorts.agents.get('hybrid')!);
    try {
      const reply = await rawCall(session, `${SERVICE}GetTask`, {
        body: getTask('no-such-task'),
        headers: { 'a2a-version': '0.3' },
      });
      expect(reply.status?.code, JSON.stringify(reply.status)).not.toBe(14); // not UNAVAILABLE at the 0.3 address
      expect(peer.requests.filter((r) => r.path.startsWith('/lf.a2a.')).length).toBe(before + 1);
    } finally {
      session.close();
    }
  });
});
