/**
 * `/admin/replicas` and the drain endpoints with `workers: 2` (the built CLI, real processes):
 * health and drain are per worker, so the list shows each worker's replicas and a drain asked of
 * whichever worker accepted it reaches both: afterwards no new conversation, through any worker,
 * goes to the drained replica.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPeerV1 } from '../peers/peer-v1.js';
import type { Peer } from '../peers/peer-common.js';
import { startRedis, type TestRedis } from '../support/redis-server.js';
import { sendMessage, startCluster, type ClusterProcess } from './cluster-process.js';

let peers: Peer[] = [];
let redis: TestRedis;
let gw: ClusterProcess;

beforeAll(async () => {
  [peers, redis] = await Promise.all([Promise.all([startPeerV1(), startPeerV1()]), startRedis()]);
  gw = await startCluster(
    `workers: 2
state: { store: redis, redis: { url: "${redis.url}" } }
listen: { host: 127.0.0.1, port: 0 }
admin: { listen: { port: 0 } }
agents:
  a:
    upstreams: ["${peers[0]!.url}", "${peers[1]!.url}"]
    health: { enabled: false }
`,
  );
}, 30_000);

afterAll(async () => {
  gw?.child.kill('SIGKILL');
  for (const pid of gw?.workerPids() ?? []) process.kill(pid, 'SIGKILL');
  await Promise.all([...peers.map((p) => p.close()), redis?.stop()]);
});

interface WorkerReplicas {
  pid: number;
  agents: Array<{ agent: string; replicas: Array<{ url: string; drained: boolean; state: string }> }>;
}

async function listed(): Promise<WorkerReplicas[]> {
  const res = await fetch(`${gw.adminUrl}/admin/replicas`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { workers: WorkerReplicas[] }).workers;
}

const drainedIn = (w: WorkerReplicas, url: string) => w.agents[0]!.replicas.find((r) => r.url === url)!.drained;
const sendsAt = (peer: Peer) => peer.requests.filter((r) => r.method === 'POST').length;

describe('replicas with workers: 2', () => {
  it("lists each worker's replicas", async () => {
    const workers = await listed();
    expect(workers.map((w) => w.pid).sort()).toEqual(gw.workerPids());
    for (const w of workers) expect(w.agents[0]!.replicas.map((r) => r.state)).toEqual(['healthy', 'healthy']);
  });

  it('drains a replica in every worker, and undrains it', async () => {
    const url = peers[1]!.url;
    const drain = (verb: string) =>
      fetch(`${gw.adminUrl}/admin/agents/a/replicas/${verb}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url }),
      });
    const res = await drain('drain');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ agent: 'a', url, drained: true, workers: 2 });
    for (const w of await listed()) expect(drainedIn(w, url)).toBe(true);
    const before = sendsAt(peers[1]!);
    for (let i = 0; i < 20; i++) await sendMessage(gw.url, `drained-${i}`);
    expect(sendsAt(peers[1]!)).toBe(before);
    expect((await drain('undrain')).status).toBe(200);
    for (const w of await listed()) expect(drainedIn(w, url)).toBe(false);
  });

  it('names an unknown replica', async () => {
    const res = await fetch(`${gw.adminUrl}/admin/agents/a/replicas/drain`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'http://127.0.0.1:1' }),
    });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain('http://127.0.0.1:1');
  });
});
