/** The traffic control app's public catalog: it lists only the agents `mayList` admits for the
 * asking request (sync or async), in config order, and asks for no card of the others. */
import { describe, expect, it } from 'vitest';
import type { IncomingMessage } from 'node:http';
import { createControlApp } from '../../src/control/app.js';
import type { CardRegistry, PublicAgentStatus } from '../../src/cards/registry.js';
import type { Upstream } from '../../src/transport/upstream.js';
import { PeerTrust } from '../../src/transport/peer.js';

function appWith(mayList?: (req: IncomingMessage, agent: string) => Promise<boolean> | boolean) {
  const upstreams = new Map(['a', 'b', 'c'].map((name) => [name, { name } as unknown as Upstream]));
  const asked: string[] = [];
  const registry = {
    pending: () => [],
    publicStatus: async (u: Upstream, base: string): Promise<PublicAgentStatus> => {
      asked.push(u.name);
      return { name: u.name, url: `${base}/agents/${u.name}/`, ready: true };
    },
  } as unknown as CardRegistry;
  const app = createControlApp({
    upstreams,
    registry,
    trust: new PeerTrust([]),
    publicUrl: 'https://gw.example.com',
    isDraining: () => false,
    ...(mayList ? { mayList } : {}),
  });
  return { app, asked };
}

const incoming = { headers: { host: 'gw', 'x-caller': 'alice' }, socket: {} } as unknown as IncomingMessage;
const names = async (res: Response) =>
  ((await res.json()) as { agents: Array<{ name: string }> }).agents.map((a) => a.name);

describe('the public catalog', () => {
  it('lists every agent by default', async () => {
    const { app } = appWith();
    expect(await names(await app.fetch(new Request('http://gw/agents'), { incoming }))).toEqual(['a', 'b', 'c']);
  });

  it('lists only what mayList admits for the request, and fetches no other card', async () => {
    const seen: Array<[unknown, string]> = [];
    const { app, asked } = appWith(async (req, agent) => {
      seen.push([req.headers['x-caller'], agent]);
      return agent !== 'b';
    });
    expect(await names(await app.fetch(new Request('http://gw/agents/'), { incoming }))).toEqual(['a', 'c']);
    expect(asked).toEqual(['a', 'c']);
    expect(seen).toEqual([
      ['alice', 'a'],
      ['alice', 'b'],
      ['alice', 'c'],
    ]);
  });

  it('takes a synchronous mayList, and lists nothing when it admits nothing', async () => {
    const { app } = appWith(() => false);
    expect(await names(await app.fetch(new Request('http://gw/agents'), { incoming }))).toEqual([]);
  });

  it('answers the admin paths with the generic 404', async () => {
    const { app } = appWith();
    for (const path of ['/exchanges', '/tasks/a/t', '/metrics']) {
      const res = await app.fetch(new Request(`http://gw${path}`), { incoming });
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ error: { code: 404, status: 'NOT_FOUND' } });
    }
  });
});
