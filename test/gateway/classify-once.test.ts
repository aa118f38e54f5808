/**
 * One classification per request (principle 4): the error context, the extended-card decision,
 * the timeout rescue and inspection read the same facts, so an ordinary request body is parsed
 * once — with inspection on or off, with or without the rescue.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { request } from 'undici';
import { fileURLToPath } from 'node:url';
import { loadCapture } from '../a2a/captures.js';
import { asBuffer, startReplayUpstream, type ReplayUpstream } from '../support/replay-upstream.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import type { ExchangeObserver } from '../../src/exchange/exchange.js';
import type { ExchangeRecord } from '../../src/exchange/record.js';
import { startPeerV1 } from '../peers/peer-v1.js';
import type { Peer } from '../peers/peer-common.js';

let upstream: ReplayUpstream;
let peer: Peer;
beforeAll(async () => {
  upstream = await startReplayUpstream();
  peer = await startPeerV1({ extendedCard: true });
});
afterAll(async () => {
  await upstream.close();
  await peer.close();
});
afterEach(() => void vi.restoreAllMocks());

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const realParse = JSON.parse;

/** Sends a request; counts the gateway's JSON.parse calls that read its body (an agent in this
 * process parses it too: only calls made from src/ count). */
async function parsesOf(gateway: RunningGateway, path: string, text: string, headers: Record<string, string> = {}) {
  let count = 0;
  vi.spyOn(JSON, 'parse').mockImplementation((raw: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
    if (raw === text && new Error().stack?.includes(SRC)) count++;
    return realParse(raw, reviver);
  });
  const res = await request(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
    body: text,
  });
  const body = await res.body.text();
  vi.restoreAllMocks();
  return { status: res.statusCode, body, count };
}

/** The same for a recorded request, played back by the replaying upstream. */
function parsesOfCapture(gateway: RunningGateway, agent: string, captureName: string) {
  const capture = loadCapture(captureName);
  const text = asBuffer(capture.request.body).toString('utf8');
  return parsesOf(gateway, `/agents/${agent}${capture.request.path}`, text, { 'x-replay': capture.name });
}

describe.each([
  ['inspection on', {}],
  ['inspection off', { inspection: { enabled: false } }],
])('with %s', (_label, extra) => {
  const finished: ExchangeRecord[] = [];
  const recorder: ExchangeObserver = { onFinish: (e) => void finished.push(e.record) };
  let gateway: RunningGateway;
  beforeAll(async () => {
    gateway = await startTestGateway(
      {
        plain: { url: upstream.url },
        rescued: { url: upstream.url, timeoutRescue: { enabled: true } },
        peer: { url: peer.url },
      },
      extra,
      [recorder],
    );
  });
  afterAll(() => gateway.close());

  it('parses a forwarded request body once', async () => {
    const { status, count } = await parsesOfCapture(gateway, 'plain', 'v1--jsonrpc-send-question.http');
    expect(status).toBe(200);
    expect(count).toBe(1);
  });

  it('parses a blocking send the timeout rescue handles once', async () => {
    const { status, count } = await parsesOfCapture(gateway, 'rescued', 'v1--jsonrpc-send-question.http');
    expect(status).toBe(200);
    expect(finished.at(-1)?.rescue).toMatchObject({ outcome: 'message' });
    expect(count).toBe(1);
  });

  it('rewrites an extended card by the same facts, parsing the request once', async () => {
    const ask = JSON.stringify({ jsonrpc: '2.0', id: 'x1', method: 'GetExtendedAgentCard' });
    const { status, body, count } = await parsesOf(gateway, '/agents/peer/a2a/jsonrpc', ask);
    expect(status).toBe(200);
    expect(JSON.parse(body).result.supportedInterfaces[0].url).toBe(`${gateway.url}/agents/peer/a2a/jsonrpc`);
    expect(count).toBe(1);
  });
});
