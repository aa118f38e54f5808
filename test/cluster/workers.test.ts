/** `workers: 2` with the built CLI (dist/cli.js; `npm test` builds first): real processes, real
 * sockets on loopback, a real SDK agent behind. The admin listener's /metrics and /exchanges
 * cover both workers; a killed worker is replaced while traffic keeps flowing; SIGTERM drains
 * and exits 0; a terminal's signals to the whole process group (Ctrl-C, hangup) are the
 * primary's to relay. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { startPeerV1 } from '../peers/peer-v1.js';
import type { Peer } from '../peers/peer-common.js';
import { GATEWAY_VERSION } from '../../src/version.js';
import { startRedis, type TestRedis } from '../support/redis-server.js';
import {
  CLI,
  alive,
  requestsTotal,
  sendMessage,
  settleTo,
  startCluster,
  type ClusterProcess,
  type LogLine,
  writeConfig,
} from './cluster-process.js';

// Workers need shared state (src/config/schema.ts checkWorkers): a real Redis for all of them.
const state = () => `state: { store: redis, redis: { url: "${redis.url}" } }\n`;
const config = (peerUrl: string) =>
  `workers: 2\n${state()}listen: { host: 127.0.0.1, port: 0 }\nadmin: { listen: { port: 0 } }\nagents:\n  a:\n    url: ${peerUrl}\n`;
const N = 40;

let peer: Peer;
let redis: TestRedis;
beforeAll(async () => {
  [peer, redis] = await Promise.all([startPeerV1(), startRedis()]);
});
afterAll(async () => {
  await Promise.all([peer.close(), redis.stop()]);
});

describe('workers: 2', () => {
  let gw: ClusterProcess;
  let forked: number[];
  beforeAll(async () => {
    gw = await startCluster(config(peer.url));
    forked = gw.lines.filter((l) => l.msg === 'worker forked').map((l) => l.pid as number);
  });
  afterAll(() => {
    gw.child.kill('SIGKILL');
    for (const pid of gw.workerPids()) process.kill(pid, 'SIGKILL');
  });

  it('announces once, with the real URLs, after both workers listen', async () => {
    const announced = gw.lines.filter((l) => l.msg === 'gateway listening');
    expect(announced).toHaveLength(1);
    expect(announced[0]).toMatchObject({ workers: 2, metrics: `${gw.adminUrl}/metrics` });
    expect(forked).toHaveLength(2);
    expect(gw.workerPids()).toEqual([...forked].sort((a, b) => a - b));
    expect((await request(`${gw.url}/healthz`)).statusCode).toBe(200);
  });

  it('/metrics counts every request, whichever worker served it; /exchanges merges both', async () => {
    // Four at a time: the workers accept from the shared socket, and a busy one leaves the next to the other.
    for (let i = 0; i < N; i += 4) {
      const batch = [0, 1, 2, 3].map((j) => sendMessage(gw.url, `count-${i + j}`));
      expect(await Promise.all(batch)).toEqual([200, 200, 200, 200]);
    }
    expect(await settleTo(() => requestsTotal(gw.adminUrl), N)).toBe(N);
    // The build-info gauge is one series at 1 however many workers answer (max, not a sum).
    const text = await (await request(`${gw.adminUrl}/metrics`)).body.text();
    expect(text.split('\n').filter((l) => l.startsWith('a2a_gateway_build_info{'))).toEqual([
      `a2a_gateway_build_info{version="${GATEWAY_VERSION}",node_version="${process.versions.node}"} 1`,
    ]);

    const res = await request(`${gw.adminUrl}/exchanges?limit=1000`);
    const { exchanges } = (await res.body.json()) as { exchanges: any[] };
    expect(exchanges).toHaveLength(N);
    // Both workers served traffic, and both workers' records are in the answer.
    expect(new Set(exchanges.map((e) => e.worker))).toEqual(new Set(forked));
    expect(new Set(exchanges.map((e) => e.a2a.messageId))).toEqual(
      new Set([...Array(N).keys()].map((i) => `count-${i}`)),
    );
    // Newest first across workers (sent one after the other, so by finish time).
    const finished = exchanges.map((e) => e.startedAt + e.durationMs);
    expect(finished).toEqual([...finished].sort((a, b) => b - a));

    // The filters and the limit reach every worker.
    const one = (await (await request(`${gw.adminUrl}/exchanges?messageId=count-7`)).body.json()) as any;
    expect(one.exchanges.map((e: any) => e.a2a.messageId)).toEqual(['count-7']);
    const few = (await (await request(`${gw.adminUrl}/exchanges?limit=5`)).body.json()) as any;
    expect(few.exchanges).toEqual(exchanges.slice(0, 5));
  });

  it('replaces a killed worker while requests keep being answered', async () => {
    const victim = forked[0]!;
    const statuses: number[] = [];
    let afterReplacement: number | undefined;
    const traffic = (async () => {
      for (let i = 0; afterReplacement === undefined || afterReplacement++ < 10; i++) {
        // The kill lands between two requests: a request on the victim's connection would die with it.
        if (i === 5) process.kill(victim, 'SIGKILL');
        statuses.push(await sendMessage(gw.url, `kill-${i}`).catch(() => 0));
      }
    })();
    let replacement: LogLine;
    try {
      const died = await gw.waitFor((l) => l.msg === 'worker died: forking a replacement', 'worker died');
      expect(died).toMatchObject({ pid: victim, signal: 'SIGKILL', level: 40 });
      replacement = await gw.waitFor((l) => l.msg === 'worker forked' && !forked.includes(l.pid), 'replacement');
      await gw.waitFor((l) => l.msg === 'worker listening' && l.pid === replacement.pid, 'replacement listening');
    } finally {
      afterReplacement ??= 0;
      await traffic;
    }
    expect(statuses.length).toBeGreaterThan(10);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect(gw.workerPids()).toEqual([forked[1]!, replacement.pid].sort((a, b) => a - b));
    expect(alive(victim)).toBe(false);
    // The replacement takes traffic (the workers accept from the shared socket: a burst reaches
    // both), and answers the primary for /exchanges.
    const workersSeen = new Set<number>();
    for (let round = 0; round < 10 && !workersSeen.has(replacement.pid); round++) {
      const burst = await Promise.all([...Array(20).keys()].map((i) => sendMessage(gw.url, `after-${round}-${i}`)));
      expect(burst.filter((s) => s !== 200)).toEqual([]);
      const { exchanges } = (await (await request(`${gw.adminUrl}/exchanges?limit=1000`)).body.json()) as any;
      for (const e of exchanges) workersSeen.add(e.worker);
    }
    expect(workersSeen).toEqual(new Set([forked[1], replacement.pid]));
  });

  it('SIGTERM: the workers drain and the primary exits 0', async () => {
    const workers = gw.workerPids();
    expect(workers).toHaveLength(2);
    gw.child.kill('SIGTERM');
    expect(await gw.exited).toBe(0);
    expect(workers.filter(alive)).toEqual([]);
    expect(gw.lines.filter((l) => l.msg === 'gateway stopped').map((l) => l.pid)).toEqual(
      expect.arrayContaining(workers),
    );
  });
});

describe('workers: 2 in a terminal (signals reach the whole process group)', () => {
  it('SIGHUP: every worker reloads the file, none dies; Ctrl-C: they drain and all exit 0', async () => {
    const gw = await startCluster(config(peer.url), { detached: true });
    try {
      const workers = gw.workerPids();
      expect(workers).toHaveLength(2);
      expect(await sendMessage(gw.url, `b-${Math.random()}`, 'b')).toBe(404);
      writeFileSync(gw.file, `${config(peer.url)}  b:\n    url: ${peer.url}\n`);
      process.kill(-gw.child.pid!, 'SIGHUP');
      for (const pid of workers)
        await gw.waitFor((l) => l.msg === 'config reloaded' && l.pid === pid && l.added?.[0] === 'b', `reload ${pid}`);
      const answered = await gw.waitFor((l) => l.msg === 'reload: workers answered', 'reload answers');
      expect(answered.answers.map((a: any) => [a.pid, a.ok]).sort()).toEqual([...workers].sort().map((p) => [p, true]));
      // Every worker serves the new agent (fresh connections spread over both).
      for (let i = 0; i < 8; i++) expect(await sendMessage(gw.url, `b-${Math.random()}`, 'b')).toBe(200);

      // POST /admin/reload on whichever worker takes it reloads them all, and says so.
      const res = await request(`${gw.adminUrl}/admin/reload`, { method: 'POST', reset: true });
      const report = (await res.body.json()) as { ok: boolean; workers: Array<{ pid: number; ok: boolean }> };
      expect(res.statusCode).toBe(200);
      expect(report.ok).toBe(true);
      expect(report.workers.map((w) => w.pid).sort()).toEqual([...workers].sort());

      process.kill(-gw.child.pid!, 'SIGINT');
      expect(await gw.exited).toBe(0);
      const stopped = gw.lines.filter((l) => l.msg === 'worker stopped');
      expect(stopped.map((l) => [l.pid, l.code, l.signal]).sort()).toEqual(workers.map((pid) => [pid, 0, null]));
      expect(gw.lines.filter((l) => l.msg.startsWith('worker died'))).toEqual([]);
    } finally {
      gw.child.kill('SIGKILL');
    }
  });
});

describe('workers: 2 that cannot run', () => {
  it('a worker that cannot start stops the gateway: exit 1, the listener named', async () => {
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
    const taken = (squatter.address() as AddressInfo).port;
    try {
      const file = writeConfig(
        `workers: 2\n${state()}listen: { host: 127.0.0.1, port: 0 }\nadmin: { listen: { host: 127.0.0.1, port: ${taken} } }\nagents:\n  a:\n    url: ${peer.url}\n`,
      );
      const run = spawnSync(process.execPath, [CLI, '--config', file], { encoding: 'utf8', timeout: 20_000 });
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(`cannot listen on 127.0.0.1:${taken} (admin.listen): EADDRINUSE`);
      expect(run.stdout).toContain('a worker could not start: stopping');
      expect(run.stdout).not.toContain('gateway listening');
    } finally {
      await new Promise<void>((resolve) => squatter.close(() => resolve()));
    }
  });

  it('workers that keep dying: the primary gives up (exit 1) instead of forking forever', async () => {
    const gw = await startCluster(config(peer.url));
    try {
      const killed = new Set<number>();
      let code: number | null | undefined;
      void gw.exited.then((c) => (code = c));
      while (code === undefined) {
        for (const line of gw.lines.filter((l) => l.msg === 'worker forked' && !killed.has(l.pid))) {
          killed.add(line.pid);
          if (alive(line.pid)) process.kill(line.pid, 'SIGKILL');
        }
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(code).toBe(1);
      const gaveUp = gw.lines.find((l) => l.msg === 'workers keep dying: giving up');
      expect(gaveUp).toMatchObject({ level: 50, deaths: 7, withinMs: 60_000 });
      // 2 workers and 6 replacements: the 7th death (more than 2 × 3) stops the forking.
      expect(gw.lines.filter((l) => l.msg === 'worker forked')).toHaveLength(8);
    } finally {
      gw.child.kill('SIGKILL');
      for (const pid of gw.workerPids()) process.kill(pid, 'SIGKILL');
    }
  });
});
