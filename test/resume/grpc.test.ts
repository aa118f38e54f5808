/**
 * Stream resume on the gRPC binding (docs/fleet.md "Stream resume"): the official SDK agent
 * serves gRPC (1.0 `lf.a2a.v1` and 0.3 `a2a.v1`) and streams 26 messages per task; two gateway
 * processes (the built CLI) share one real redis-server. A raw HTTP/2 client reads a
 * SendStreamingMessage through gateway A, cancels it after a random message, and resumes through
 * gateway B with `last-event-id: {a2a-gateway-stream}.{n}` — SubscribeToTask, or the same
 * SendStreamingMessage sent again — and must get every later message once, in order, each frame
 * byte-equal to what the agent wrote, ending with grpc-status 0; the agent saw the message once.
 * Runs the built CLI (`npm test` builds first).
 */
import { randomUUID } from 'node:crypto';
import type { ClientHttp2Session } from 'node:http2';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../support/redis-server.js';
import { pollUntil } from '../peers/deadline.js';
import { freePort, startGatewayProcess, type GatewayProcess, waitReady } from '../state/support/replicas.js';
import { EVENTS, startCountingAgent, type CountingAgent } from './support/counting-agent.js';
import { h2, rawCall, sendMessageRequest, taskIdOf } from '../grpc/support/raw-grpc.js';
import { subscribeToTaskRequest } from '../../src/a2a/grpc/rescue-wire.js';
import { readThenCancel } from './support/grpc-stream-client.js';
import { GrpcFrameReader, encodeGrpcFrame } from '../../src/codec/grpc-frames.js';
import type { RecordedStream } from '../peers/peer-grpc.js';

let redis: TestRedis;
let agent: CountingAgent;
const gateways: { process: GatewayProcess; ports: Record<string, number> }[] = [];

const AGENTS = {
  counter: 'resume: { enabled: true, grace: 30s, window: { events: 64 } }',
  short: 'resume: { enabled: true, window: { events: 4 } }',
  plain: 'resume: { enabled: false }',
  nograce: 'resume: { enabled: true, grace: 0s }',
};

function config(ports: Record<string, number>): string {
  const agents = Object.entries(AGENTS).map(
    ([name, resume]) => `  ${name}:
    url: "${agent.url}"
    grpc: { url: "${agent.grpcUrl!}", listen: { host: 127.0.0.1, port: ${ports[name]} } }
    ${resume}`,
  );
  return `listen: { host: 127.0.0.1, port: 0 }
admin: { listen: { host: 127.0.0.1, port: 0 } }
shutdown: { grace: 1s }
log: { access: false }
state:
  store: redis
  redis: { url: "${redis.url}", required: true } # readiness waits for the connection (waitReady)
agents:
${agents.join('\n')}
`;
}

beforeAll(async () => {
  redis = await startRedis();
  agent = await startCountingAgent(25, { grpc: true });
  for (let i = 0; i < 2; i++) {
    const ports: Record<string, number> = {};
    for (const name of Object.keys(AGENTS)) ports[name] = await freePort();
    const process = await startGatewayProcess(config(ports));
    await waitReady(process);
    gateways.push({ process, ports });
  }
}, 30_000);

afterAll(async () => {
  await Promise.all(gateways.map((g) => g.process.stop()));
  await agent?.close();
  await redis?.stop();
});

async function session(gateway: number, agentName: keyof typeof AGENTS): Promise<ClientHttp2Session> {
  return h2(gateways[gateway]!.ports[agentName]!);
}

const V1 = '/lf.a2a.v1.A2AService/';
const V03 = '/a2a.v1.A2AService/';

/** A 0.3 SendMessageRequest: request 1 = the same Message shape (message_id 1, role 4, content 5). */
function sendMessageRequestV03(text: string): Uint8Array {
  const v1 = sendMessageRequest(text); // field 2 = Message
  const message = v1.subarray(2 + (v1[1]! >= 0x80 ? 1 : 0));
  return new BinaryWriter().tag(1, WireType.LengthDelimited).bytes(message).finish();
}

/** The agent's one server stream for `taskId`, once it wrote every message. */
async function agentStream(taskId: string): Promise<RecordedStream[]> {
  const ofTask = () => agent.grpcStreams.filter((s) => s.frames[0] && taskIdOf(s.frames[0]) === taskId);
  await pollUntil(
    () => Promise.resolve(ofTask()),
    (streams) => streams.length > 0 && streams[0]!.frames.length === EVENTS,
    15_000,
    'the agent to finish its stream',
  );
  return ofTask();
}

/** The frames of a body, each as its own Buffer. */
function framesOf(data: Buffer): Buffer[] {
  const out: Buffer[] = [];
  new GrpcFrameReader(1 << 20).push(data, (m) => out.push(Buffer.from(encodeGrpcFrame(m))));
  return out;
}

const VERSIONS = [
  { version: '1.0', service: V1, send: sendMessageRequest, subscribe: 'SubscribeToTask' },
  { version: '0.3', service: V03, send: sendMessageRequestV03, subscribe: 'TaskSubscription' },
] as const;

describe('gRPC stream resume across two gateway processes on one Redis', () => {
  for (const v of VERSIONS) {
    for (const how of ['SubscribeToTask', 'SendStreamingMessage again'] as const) {
      it(`${v.version}: cancelled through A, resumed with ${how} and last-event-id through B`, async () => {
        const body = v.send(`count ${randomUUID()}`);
        const cutAt = 2 + Math.floor(Math.random() * (EVENTS - 4));
        const opened = agent.grpcStreams.length;
        const a = await session(0, 'counter');
        const version = { 'a2a-version': v.version };
        const before = await readThenCancel(a, `${v.service}SendStreamingMessage`, body, cutAt, version);
        a.close();
        const name = String(before.headers['a2a-gateway-stream']);
        const taskId = taskIdOf(before.frames[0]!)!;
        expect(name.startsWith(`${Buffer.from(taskId).toString('base64url')}.`)).toBe(true);
        const b = await session(1, 'counter');
        const resumed = await rawCall(
          b,
          `${v.service}${how === 'SubscribeToTask' ? v.subscribe : 'SendStreamingMessage'}`,
          {
            body: how === 'SubscribeToTask' ? subscribeToTaskRequest(taskId, v.version) : body,
            headers: { 'last-event-id': `${name}.${before.frames.length}`, 'a2a-version': v.version },
            ms: 15_000,
          },
        );
        b.close();
        expect(resumed.status?.code).toBe(0);
        expect(resumed.headers['a2a-gateway-stream']).toBe(name);
        const [sent, ...others] = await agentStream(taskId);
        expect(others).toHaveLength(0);
        expect(agent.grpcStreams.length - opened).toBe(1); // the resume never reached the agent
        expect(Buffer.concat([...before.frames, resumed.data]).equals(Buffer.concat(sent!.frames))).toBe(true);
      });
    }
  }

  for (const v of VERSIONS) {
    const how = v.version === '1.0' ? 'SendStreamingMessage again' : v.subscribe;
    it(`${v.version}: nobody reads the agent any more (grace 0s): the window, then an upstream ${v.subscribe}, via ${how}`, async () => {
      const body = v.send(`count ${randomUUID()}`);
      const opened = agent.grpcStreams.length;
      const a = await session(0, 'nograce');
      const version = { 'a2a-version': v.version };
      const before = await readThenCancel(a, `${v.service}SendStreamingMessage`, body, 3, version);
      a.close();
      const taskId = taskIdOf(before.frames[0]!)!;
      const b = await session(1, 'nograce');
      const own = how !== 'SendStreamingMessage again';
      const resumed = await rawCall(b, `${v.service}${own ? v.subscribe : 'SendStreamingMessage'}`, {
        body: own ? subscribeToTaskRequest(taskId, v.version) : body,
        headers: { 'last-event-id': `${String(before.headers['a2a-gateway-stream'])}.3`, ...version },
        ms: 15_000,
      });
      b.close();
      expect(resumed.status?.code).toBe(0);
      const got = framesOf(resumed.data);
      const mine = agent.grpcStreams.slice(opened).filter((s) => s.frames[0] && taskIdOf(s.frames[0]) === taskId);
      const [send, sub] = mine;
      expect(mine.map((s) => s.path.split('/')[2])).toEqual(['SendStreamingMessage', v.subscribe]);
      expect(agent.grpcStreams.length - opened).toBe(2); // the message reached the agent once
      // The window: what the first stream relayed before it was cancelled, after the client's third
      // message (the agent may have written more into the cancelled call: its record has more).
      const fromWindow = got.slice(0, got.length - sub!.frames.length);
      expect(fromWindow).toEqual(send!.frames.slice(3, 3 + fromWindow.length));
      // Then the agent's SubscribeToTask answer, message for message, to its end.
      expect(got.slice(fromWindow.length)).toEqual(sub!.frames);
    });
  }

  it('a last-event-id older than the window is OUT_OF_RANGE with RESUME_WINDOW_EXCEEDED', async () => {
    const body = sendMessageRequest(`count ${randomUUID()}`);
    const a = await session(0, 'short');
    const before = await readThenCancel(a, `${V1}SendStreamingMessage`, body, 2);
    a.close();
    const taskId = taskIdOf(before.frames[0]!)!;
    await agentStream(taskId);
    const b = await session(1, 'short');
    const resumed = await rawCall(b, `${V1}SubscribeToTask`, {
      body: subscribeToTaskRequest(taskId, '1.0'),
      headers: { 'last-event-id': `${String(before.headers['a2a-gateway-stream'])}.2` },
    });
    b.close();
    expect(resumed.status?.code).toBe(11); // OUT_OF_RANGE
    expect(resumed.status?.reason).toBe('RESUME_WINDOW_EXCEEDED');
    // Refused before any replay: trailers-only, no stream named, no message.
    expect(resumed.headers['grpc-status']).toBe('11');
    expect(resumed.headers['a2a-gateway-stream']).toBeUndefined();
    expect(resumed.data.length).toBe(0);
  });

  it('resume off: no stream named in the headers, and the bytes as the agent wrote them', async () => {
    const s = await session(0, 'plain');
    const got = await rawCall(s, `${V1}SendStreamingMessage`, {
      body: sendMessageRequest(`count ${randomUUID()}`),
      ms: 15_000,
    });
    s.close();
    expect(got.status?.code).toBe(0);
    expect(got.headers['a2a-gateway-stream']).toBeUndefined();
    const [sent] = await agentStream(taskIdOf(got.data)!);
    expect(got.data.equals(Buffer.concat(sent!.frames))).toBe(true);
  });

  it('counts what it did on a2a_stream_resumes_total (gateway B replayed and refused above)', async () => {
    const text = await (await fetch(`${gateways[1]!.process.adminUrl}/metrics`)).text();
    const count = (name: string, outcome: string) =>
      Number(
        new RegExp(`^a2a_stream_resumes_total\\{agent="${name}",outcome="${outcome}"\\} (\\d+)`, 'm').exec(text)?.[1],
      );
    expect(count('counter', 'replayed')).toBe(VERSIONS.length * 2);
    expect(count('short', 'beyond_window')).toBe(1);
    expect(count('nograce', 'continued')).toBe(VERSIONS.length);
  });
});
