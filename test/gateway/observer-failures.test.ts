/**
 * Telemetry never changes an answer (principles 5 and 15): an observer that throws in any hook
 * leaves status, headers and body bytes exactly as a gateway without it sends them, for a unary
 * answer and for an SSE stream; the exchange still finishes, and the gateway logs the failure.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { request } from 'undici';
import { loadCapture, type Capture } from '../a2a/captures.js';
import { asBuffer, startReplayUpstream, type ReplayUpstream } from '../support/replay-upstream.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import type { ExchangeObserver, ObserverHook } from '../../src/exchange/exchange.js';
import type { ExchangeRecord } from '../../src/exchange/record.js';

const HOOKS: ObserverHook[] = ['onForward', 'onRequestChunk', 'onResponseStart', 'onResponseChunk', 'onFinish'];
/** [capture, agent]: a unary answer, two streams, and a unary answer through the timeout rescue. */
const CASES = [
  ['v1--jsonrpc-send-question.http', 'replay'],
  ['v1--rest-send-streaming.http', 'replay'],
  ['v1--jsonrpc-send-streaming.http', 'replay'],
  ['v1--rest-send-question.http', 'rescued'],
] as const;

let upstream: ReplayUpstream;
let reference: RunningGateway;
beforeAll(async () => {
  upstream = await startReplayUpstream();
  reference = await startTestGateway(agents());
});
afterAll(async () => {
  await reference.close();
  await upstream.close();
});

function agents() {
  return { replay: { url: upstream.url }, rescued: { url: upstream.url, timeoutRescue: { enabled: true } } };
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

async function send(gateway: RunningGateway, capture: Capture, agent: string): Promise<Answer> {
  const headers: Record<string, string> = { 'x-replay': capture.name };
  for (const [name, value] of capture.request.rawHeaders)
    if (!['host', 'content-length', 'connection'].includes(name.toLowerCase())) headers[name] = value;
  const res = await request(`${gateway.url}/agents/${agent}${capture.request.path}`, {
    method: capture.request.method as 'POST',
    headers,
    body: asBuffer(capture.request.body),
  });
  const { date: _date, ...kept } = res.headers;
  return { status: res.statusCode, headers: kept, body: Buffer.from(await res.body.arrayBuffer()) };
}

/** A gateway with an observer that throws in `hook`, and a recorder after it; its log lines. */
async function brokenGateway(hook: ObserverHook) {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const finished: ExchangeRecord[] = [];
  const broken: ExchangeObserver = {
    name: 'broken',
    [hook]: () => {
      throw new Error(`broken ${hook}`);
    },
  };
  const recorder: ExchangeObserver = { name: 'recorder', onFinish: (e) => void finished.push(e.record) };
  const gateway = await startTestGateway(
    agents(),
    { log: { access: false } },
    [broken, recorder],
    pino({ level: 'info', base: undefined }, sink),
  );
  return { gateway, lines, finished };
}

describe.each(HOOKS)('an observer that throws in %s', (hook) => {
  it.each(CASES)('changes nothing the client receives of %s (agent %s), and is logged', async (name, agent) => {
    const capture = loadCapture(name);
    const { gateway, lines, finished } = await brokenGateway(hook);
    try {
      const expected = await send(reference, capture, agent);
      const got = await send(gateway, capture, agent);
      expect(got.status).toBe(capture.response!.status);
      expect(got.body.equals(asBuffer(capture.response!.body))).toBe(true);
      expect(got).toEqual(expected);
      // Later observers still see the exchange, finished once and complete.
      for (let i = 0; i < 50 && finished.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(finished).toHaveLength(1);
      expect(finished[0]).toMatchObject({ outcome: 'complete', status: capture.response!.status });
      if (agent === 'rescued') expect(finished[0]!.rescue).toMatchObject({ outcome: 'message' });
    } finally {
      await gateway.close();
    }
    const failures = lines.filter((l) => l['observer'] === 'broken');
    expect(failures).toHaveLength(1); // the first failure at once; repeats within 10 s are counted
    expect(failures[0]).toMatchObject({ hook, level: 50, err: { message: `broken ${hook}` } });
  });
});
