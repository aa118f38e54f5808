/** `workers: 2` and ListTasks under task ownership (issue #29): a page token sealed by one worker
 * opens on the other (the primary hands both one key, src/access/page-tokens.ts), with no
 * `auth.pageTokenSecret` set. The built CLI as a real process tree, a real Redis, the SDK agent. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { request } from 'undici';
import { startPeerV1 } from '../peers/peer-v1.js';
import type { Peer } from '../peers/peer-common.js';
import { startRedis, type TestRedis } from '../support/redis-server.js';
import { startCluster, type ClusterProcess } from './cluster-process.js';

const KEY = 'alice-key-0123456789abcdef';
const HEADERS = { 'a2a-version': '1.0', 'x-api-key': KEY };
/** Chains of (page 1, page 2) tried until one crossed workers; each on fresh connections. */
const MAX_CHAINS = 60;

let peer: Peer;
let redis: TestRedis;
let gw: ClusterProcess;
beforeAll(async () => {
  [peer, redis] = await Promise.all([startPeerV1(), startRedis()]);
  gw = await startCluster(
    `workers: 2
state: { store: redis, redis: { url: "${redis.url}" } }
listen: { host: 127.0.0.1, port: 0 }
admin: { listen: { port: 0 } }
auth: { apiKeys: { alice: { key: "${KEY}" } } }
agents:
  a:
    url: ${peer.url}
`,
  );
  for (let i = 0; i < 3; i++) {
    const res = await request(`${gw.url}/agents/a/a2a/jsonrpc`, {
      method: 'POST',
      headers: { ...HEADERS, 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: i,
        method: 'SendMessage',
        params: { message: { messageId: `m-${i}`, role: 'ROLE_USER', parts: [{ text: 'needs input' }] } },
      }),
    });
    expect(res.statusCode).toBe(200);
    await res.body.dump();
  }
});
afterAll(async () => {
  gw?.child.kill('SIGKILL');
  for (const pid of gw?.workerPids() ?? []) process.kill(pid, 'SIGKILL');
  await Promise.all([peer?.close(), redis?.stop()]);
});

/** One REST ListTasks of one task per page on a fresh connection; `tag`, a parameter name, marks it
 * in /exchanges (which shows query names, never values). */
async function list(tag: string, pageToken = ''): Promise<{ status: number; next: string }> {
  const token = pageToken === '' ? '' : `&pageToken=${encodeURIComponent(pageToken)}`;
  const res = await request(`${gw.url}/agents/a/a2a/rest/tasks?pageSize=1&${tag}=1${token}`, {
    headers: HEADERS,
    reset: true,
  });
  const body = (await res.body.json()) as { nextPageToken?: string };
  return { status: res.statusCode, next: body.nextPageToken ?? '' };
}

async function workerOf(): Promise<Map<string, number>> {
  const res = await request(`${gw.adminUrl}/exchanges?limit=1000`);
  const { exchanges } = (await res.body.json()) as { exchanges: { path: string; worker: number }[] };
  const tagged = exchanges.map((e) => [/[?&](c\d+p[12])=/.exec(e.path)?.[1], e.worker] as const);
  return new Map(tagged.filter((t): t is readonly [string, number] => t[0] !== undefined));
}

it('a page token from one worker opens on the other', async () => {
  const statuses: number[] = [];
  let crossed = 0;
  for (let chain = 0; chain < MAX_CHAINS && crossed === 0; chain += 4) {
    // Four chains at once: a busy worker leaves the next connection to the other.
    await Promise.all(
      [0, 1, 2, 3].map(async (j) => {
        const first = await list(`c${chain + j}p1`);
        const second = await list(`c${chain + j}p2`, first.next);
        statuses.push(first.status, second.status);
      }),
    );
    const workers = await workerOf();
    for (let j = 0; j < 4; j++) {
      const [one, two] = [workers.get(`c${chain + j}p1`), workers.get(`c${chain + j}p2`)];
      if (one !== undefined && two !== undefined && one !== two) crossed++;
    }
  }
  console.log(
    JSON.stringify((await (await request(`${gw.adminUrl}/exchanges?limit=3`)).body.json()) as any).slice(0, 1500),
  );
  expect(crossed, 'no chain had its two pages on different workers').toBeGreaterThan(0);
  expect(
    statuses.every((s) => s === 200),
    statuses.join(' '),
  ).toBe(true);
});
