/** The admin listener reading /metrics and /exchanges from elsewhere (`GatewayOptions.adminSources`,
 * what a cluster worker passes: src/cluster/worker.ts), and `RunningGateway.local`, what a worker
 * answers the primary with. Without sources (the single process) see admin-listener.test.ts. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { parseConfig } from '../../src/config/load.js';
import { startGateway, type RunningGateway } from '../../src/gateway/gateway.js';
import type { RecentQuery } from '../../src/inspect/recent.js';

const queries: RecentQuery[] = [];
let gateway: RunningGateway;

beforeAll(async () => {
  const config = parseConfig(
    JSON.stringify({
      listen: { host: '127.0.0.1', port: 0 },
      admin: { listen: { host: '127.0.0.1', port: 0 } },
      agents: { a: { url: 'http://127.0.0.1:1' } },
    }),
    'test-config',
    {},
  );
  gateway = await startGateway(config, {
    logger: pino({ level: 'silent' }),
    announce: false,
    adminSources: {
      metrics: async () => new Response('elsewhere_total 3\n', { headers: { 'content-type': 'text/plain' } }),
      exchanges: async (query) => {
        queries.push(query);
        return [{ from: 'elsewhere' }];
      },
    },
  });
});
afterAll(() => gateway.close());

describe('admin sources', () => {
  it('/metrics is the source’s answer', async () => {
    const res = await fetch(`${gateway.adminUrl}/metrics`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('elsewhere_total 3\n');
  });

  it('/exchanges is the source’s answer, given the parsed query', async () => {
    const res = await fetch(`${gateway.adminUrl}/exchanges?agent=a&taskId=t1&limit=7`);
    expect(await res.json()).toEqual({ exchanges: [{ from: 'elsewhere' }] });
    expect(queries.at(-1)).toEqual({ agent: 'a', messageId: undefined, taskId: 't1', limit: 7 });
    // A bad query is refused before the source is asked (issue 30 item 6).
    const asked = queries.length;
    expect((await fetch(`${gateway.adminUrl}/exchanges?limit=many`)).status).toBe(400);
    expect(queries.length).toBe(asked);
  });

  it('local: this process’s own exchanges and registry', async () => {
    await fetch(`${gateway.url}/agents/a/`); // 502: the agent is not there, and it is recorded
    const deadline = Date.now() + 5000;
    while (gateway.local.exchanges({}).length === 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect(gateway.local.exchanges({ agent: 'a' })).toMatchObject([{ agent: 'a', status: 502 }]);
    const names = (await gateway.local.metricsJson()).map((m) => (m as { name: string }).name);
    expect(names).toContain('a2a_requests_total');
  });
});
