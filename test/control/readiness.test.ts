/**
 * Readiness is about the gateway itself (issue #30 item 1): one unreachable agent — at start or
 * added by a hot reload — leaves `/readyz` 200 on both listeners and the other agents served; an
 * agent's card state goes to `a2a_agent_card_up`, the admin `/readyz` (`cardsUnavailable`), and
 * holds readiness only with `required: true` (src/control/health.ts, src/cards/registry.ts).
 * Real loopback sockets, a real SDK agent (test/peers/peer-v1.ts) and the SDK client.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { startPeerV1 } from '../peers/peer-v1.js';
import type { Peer } from '../peers/peer-common.js';
import { clientV1, sendRequestV1, userMessageV1 } from '../peers/clients.js';
import { deadUrl, scriptedUpstream } from '../support/scripted-upstream.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import { configOf, metricsText, start, until } from '../reload/support.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function peer(): Promise<Peer> {
  const p = await startPeerV1();
  closers.push(() => p.close());
  return p;
}

async function gatewayOn(agents: Record<string, unknown>): Promise<RunningGateway> {
  const { gateway } = await start(agents);
  closers.push(() => gateway.close());
  return gateway;
}

async function readyz(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await request(`${url}/readyz`);
  return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
}

/** The agent answers through the gateway, with the SDK client (its card, then a SendMessage). */
async function served(gateway: RunningGateway, agent: string): Promise<void> {
  const client = await clientV1(`${gateway.url}/agents/${agent}/`, { transport: 'JSONRPC' });
  const answer = await client.sendMessage(sendRequestV1(userMessageV1('what is 2+2?')));
  expect(JSON.stringify(answer)).toContain('Answer: 42.');
}

/** The value of `a2a_agent_card_up{agent}` in the exposition, or undefined without the series. */
async function cardUp(gateway: RunningGateway, agent: string): Promise<number | undefined> {
  const line = (await metricsText(gateway))
    .split('\n')
    .find((l) => l.startsWith(`a2a_agent_card_up{agent="${agent}"}`));
  return line === undefined ? undefined : Number(line.split(' ').pop());
}

/** Waits until the registry has tried the agent's card and failed (the state the test is about). */
const unavailable = (gateway: RunningGateway, agent: string) =>
  until(() => gateway.registry.cardStates().some((s) => s.agent === agent && s.state === 'unavailable'));

describe('readiness with an unreachable agent', () => {
  it('at start: ready on both listeners, the other agent served, the admin /readyz and the metric say which', async () => {
    const live = await peer();
    const gateway = await gatewayOn({ live: { url: live.url }, gone: { url: await deadUrl() } });
    await unavailable(gateway, 'gone');
    await until(async () => (await cardUp(gateway, 'live')) === 1);

    expect(await readyz(gateway.url)).toEqual({ status: 200, body: { status: 'ready' } });
    expect(await readyz(gateway.adminUrl!)).toEqual({
      status: 200,
      body: { status: 'ready', cardsUnavailable: ['gone'] },
    });
    await served(gateway, 'live');
    expect(await cardUp(gateway, 'live')).toBe(1);
    expect(await cardUp(gateway, 'gone')).toBe(0);
  });

  it('added by a hot reload: still ready, the agents before it still served', async () => {
    const live = await peer();
    const gateway = await gatewayOn({ live: { url: live.url } });
    await until(async () => (await readyz(gateway.url)).status === 200);

    const report = gateway.reload(configOf({ live: { url: live.url }, gone: { url: await deadUrl() } }));
    expect(report).toMatchObject({ ok: true, added: ['gone'] });
    await unavailable(gateway, 'gone');

    expect(await readyz(gateway.url)).toEqual({ status: 200, body: { status: 'ready' } });
    expect((await readyz(gateway.adminUrl!)).body).toMatchObject({ status: 'ready', cardsUnavailable: ['gone'] });
    await served(gateway, 'live');
    expect(await cardUp(gateway, 'gone')).toBe(0);
  });

  it('required: true: 503 while its card is unavailable, 200 once it arrives', async () => {
    const live = await peer();
    // The required agent's card endpoint: 503 until `arrive`, then the real agent's card.
    let arrived = false;
    const late = await scriptedUpstream((req, res) => {
      if (!arrived) {
        res.writeHead(503).end();
        return;
      }
      void fetch(`${live.url}${req.url}`).then(async (r) => {
        res.writeHead(r.status, { 'content-type': 'application/json' }).end(Buffer.from(await r.arrayBuffer()));
      });
    });
    closers.push(() => late.close());
    const gateway = await gatewayOn({ live: { url: live.url }, late: { url: late.url, required: true } });
    await unavailable(gateway, 'late');
    await until(async () => (await cardUp(gateway, 'live')) === 1);

    expect(await readyz(gateway.url)).toEqual({ status: 503, body: { status: 'not ready' } });
    expect(await readyz(gateway.adminUrl!)).toEqual({
      status: 503,
      body: { status: 'not ready', waitingForCards: ['late'], cardsUnavailable: ['late'] },
    });
    expect(await cardUp(gateway, 'late')).toBe(0);

    arrived = true;
    await until(async () => (await readyz(gateway.url)).status === 200);
    expect(await readyz(gateway.adminUrl!)).toEqual({ status: 200, body: { status: 'ready' } });
    expect(await cardUp(gateway, 'late')).toBe(1);
  });
});
