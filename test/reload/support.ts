/** What the reload tests share: configs as test/support/gateway.ts makes them, a captured log,
 * an upstream stream the test releases event by event, and a stream reader. */
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { request } from 'undici';
import { parseConfig } from '../../src/config/load.js';
import type { GatewayConfig } from '../../src/config/schema.js';
import { startGateway, type GatewayOptions, type RunningGateway } from '../../src/gateway/gateway.js';
import { scriptedUpstream } from '../support/scripted-upstream.js';

/** The base of every test config (ephemeral loopback ports; as startTestGateway). */
export function baseConfig(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    listen: { host: '127.0.0.1', port: 0 },
    admin: { listen: { host: '127.0.0.1', port: 0 } },
    shutdown: { grace: '2s' },
    cards: { retry: '200ms' },
    ...extra,
  };
}

export function configOf(agents: Record<string, unknown>, extra: Record<string, unknown> = {}): GatewayConfig {
  return parseConfig(JSON.stringify({ ...baseConfig(extra), agents }), 'test-config', {});
}

/** A logger whose lines the test reads (parsed JSON). */
export function capturedLog(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level: 'info', base: undefined }, sink), lines };
}

export async function start(
  agents: Record<string, unknown>,
  extra: Record<string, unknown> = {},
  options: GatewayOptions = {},
): Promise<{ gateway: RunningGateway; lines: Record<string, unknown>[] }> {
  const { logger, lines } = capturedLog();
  const gateway = await startGateway(configOf(agents, extra), { logger, ...options });
  return { gateway, lines };
}

export const EVENTS = [1, 2, 3].map(
  (n) =>
    `data: {"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"${n === 3 ? 'TASK_STATE_COMPLETED' : 'TASK_STATE_WORKING'}"}}}}\n\n`,
);

/** An SSE agent that sends the first event, then the rest once the test calls `release()`. */
export async function heldStream(): Promise<{ url: string; release: () => void; close: () => Promise<void> }> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const upstream = await scriptedUpstream(async (req, res) => {
    for await (const _ of req);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(EVENTS[0]);
    await released;
    res.write(EVENTS[1]);
    res.end(EVENTS[2]);
  });
  return { ...upstream, release };
}

const JSON_HEADERS = { 'content-type': 'application/json', 'a2a-version': '1.0' };

export const rpc = (method: string, text: string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method,
    params: { message: { messageId: `m-${text}`, role: 'ROLE_USER', parts: [{ text }] } },
  });

/** A SendStreamingMessage, read until its first event has arrived; `rest()` reads it to the end. */
export async function openStream(url: string): Promise<{ first: string; rest: () => Promise<string> }> {
  const res = await request(url, {
    method: 'POST',
    headers: { ...JSON_HEADERS, accept: 'text/event-stream' },
    body: rpc('SendStreamingMessage', 'held'),
  });
  const chunks = res.body[Symbol.asyncIterator]();
  let first = '';
  while (!first.endsWith('\n\n')) {
    const next = await chunks.next();
    if (next.done) break;
    first += String(next.value);
  }
  const rest = async () => {
    let text = '';
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) text += String(next.value);
    return text;
  };
  return { first, rest };
}

/** A blocking SendMessage through the gateway: status and parsed body. */
export async function send(url: string, headers: Record<string, string> = {}) {
  const res = await request(url, {
    method: 'POST',
    headers: { ...JSON_HEADERS, ...headers },
    body: rpc('SendMessage', 'hello'),
  });
  return { status: res.statusCode, body: (await res.body.json()) as Record<string, any> };
}

export async function getJson(url: string, headers: Record<string, string> = {}) {
  const res = await request(url, { headers });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? (JSON.parse(text) as Record<string, any>) : undefined };
}

/** The admin listener's /metrics text. */
export async function metricsText(gateway: RunningGateway, headers: Record<string, string> = {}): Promise<string> {
  const res = await request(gateway.metricsUrl!, { headers });
  return res.body.text();
}

/** Polls `check` until it holds (no time threshold: the test's own timeout bounds it). */
export async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, 20));
}
