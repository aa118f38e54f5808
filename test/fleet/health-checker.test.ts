/**
 * One health check (src/fleet/health-checker.ts `probe`) against real loopback servers: a 2xx
 * passes, another status or a refused connection fails with what it met, and an endless body is
 * cut at the cap instead of read forever. The checker itself reports each result and stops.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Pool } from 'undici';
import { HealthChecker, probe, type CheckSettings } from '../../src/fleet/health-checker.js';
import type { Replica } from '../../src/transport/replica.js';
import { ReplicaHealth } from '../../src/transport/replica-health.js';
import { deadUrl, scriptedUpstream } from '../support/scripted-upstream.js';
import { pollUntil } from '../peers/deadline.js';

let server: Awaited<ReturnType<typeof scriptedUpstream>>;
const pools: Pool[] = [];

function replicaAt(url: string): Replica {
  const pool = new Pool(url);
  pools.push(pool);
  return { url, origin: url, pool, streams: pool, grpc: undefined, health: new ReplicaHealth(false) };
}

const settings = (path: string): CheckSettings => ({ path, interval: 20, timeout: 1000, headers: {} });

beforeAll(async () => {
  server = await scriptedUpstream((req, res) => {
    if (req.url === '/ok') return void res.writeHead(204).end();
    if (req.url === '/down') return void res.writeHead(503).end('{"down":true}');
    // Never ends: only the cap ends the read.
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    const chunk = Buffer.alloc(16 * 1024, 1);
    const pump = () => {
      while (res.write(chunk));
      res.once('drain', pump);
    };
    pump();
  });
});

afterAll(async () => {
  await Promise.all(pools.map((p) => p.destroy()));
  await server?.close();
});

describe('probe', () => {
  it('passes on a 2xx and fails on a 5xx, saying what it met', async () => {
    const replica = replicaAt(server.url);
    expect(await probe(replica, settings('/ok'))).toEqual({ ok: true, detail: 'HTTP 204' });
    expect(await probe(replica, settings('/down'))).toEqual({ ok: false, detail: 'HTTP 503' });
  });

  it('fails on a refused connection', async () => {
    const replica = replicaAt(await deadUrl());
    expect(await probe(replica, settings('/ok'))).toEqual({ ok: false, detail: 'ECONNREFUSED' });
  });

  it('stops reading an endless body at the cap', async () => {
    const replica = replicaAt(server.url);
    expect(await probe(replica, settings('/endless'))).toEqual({ ok: true, detail: 'HTTP 200' });
  });
});

describe('HealthChecker', () => {
  it('reports each check until stopped', async () => {
    const results: string[] = [];
    const checker = new HealthChecker(replicaAt(server.url), settings('/down'), (ok, detail) =>
      results.push(`${ok} ${detail}`),
    );
    checker.start();
    await pollUntil(
      async () => results.length,
      (n) => n >= 3,
      10_000,
      'three checks',
    );
    checker.stop();
    expect(new Set(results)).toEqual(new Set(['false HTTP 503']));
    const after = results.length;
    await new Promise((r) => setTimeout(r, 100)); // five intervals
    expect(results.length).toBe(after);
  });
});
