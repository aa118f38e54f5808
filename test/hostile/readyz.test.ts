/**
 * Readiness on the traffic listener tells anyone who can reach the gateway ready or not, and
 * nothing else (issue #29 item 5): not the agents it waits for (the public `/agents` hides them
 * from a caller that may not use them), not why the last reload was refused (the YAML parser's
 * error quotes the lines around the mistake, an `Authorization: Bearer …` among them). The admin
 * listener's `/readyz` keeps the detail, behind `admin.token`. A gateway loaded from a YAML file
 * and reloaded by `POST /admin/reload`, as the CLI runs it, over loopback sockets.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { startPeerV1 } from '../peers/peer-v1.js';
import type { Peer } from '../peers/peer-common.js';
import { deadUrl } from '../support/scripted-upstream.js';
import { loadConfigFile } from '../../src/config/load.js';
import { startGateway, type RunningGateway } from '../../src/gateway/gateway.js';
import { reloadFromFile } from '../../src/reload/from-file.js';

const SECRET = 's3cr3t-reload-token-0123456789';
const ADMIN_TOKEN = 'admin-token-0123456789abcdef';
const KEY = 'ops-key-0123456789abcdef';

let peer: Peer;
let dir: string;
const gateways: RunningGateway[] = [];

beforeAll(async () => {
  peer = await startPeerV1();
  dir = mkdtempSync(join(tmpdir(), 'a2a-gw-readyz-'));
});
afterAll(async () => {
  for (const g of gateways) await g.close();
  await peer?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The config as YAML: `agents` is YAML text indented by two spaces under `agents:`. */
const yaml = (agents: string) =>
  [
    'listen: { host: 127.0.0.1, port: 0 }',
    `admin: { listen: { host: 127.0.0.1, port: 0 }, token: ${ADMIN_TOKEN} }`,
    'shutdown: { grace: 2s }',
    'cards: { retry: 200ms }',
    'auth:',
    '  apiKeys:',
    `    ops-client: { key: ${KEY}, groups: [ops] }`,
    'agents:',
    agents,
    '',
  ].join('\n');

/** A gateway on `file`, reloaded from it by `POST /admin/reload` (as src/cli.ts wires it). */
async function start(name: string, agents: string): Promise<{ gateway: RunningGateway; file: string }> {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, yaml(agents));
  const gateway: RunningGateway = await startGateway(loadConfigFile(file), {
    logger: pino({ level: 'silent' }),
    reload: () => Promise.resolve(reloadFromFile(file, gateway)),
  });
  gateways.push(gateway);
  return { gateway, file };
}

async function get(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers, signal: AbortSignal.timeout(5000) });
  return { status: res.status, text: await res.text() };
}

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, 50));
}

describe('traffic /readyz', () => {
  it('after a refused reload whose file holds a credential: ready, and no word of the reload', async () => {
    const agents = `  billing:\n    url: ${peer.url}\n    access: { allow: [ops] }`;
    const { gateway, file } = await start('refused', agents);
    await until(async () => (await get(`${gateway.url}/readyz`)).status === 200);

    // A YAML mistake right under the agent's credential: the parser's message quotes both lines.
    const broken = `${agents}\n    headers:\n      Authorization: Bearer ${SECRET}\n     oops: [unclosed`;
    writeFileSync(file, yaml(broken));
    const reload = await fetch(`${gateway.adminUrl}/admin/reload`, { method: 'POST', headers: admin });
    expect(reload.status).toBe(422);

    const traffic = await get(`${gateway.url}/readyz`);
    expect(traffic.status).toBe(200);
    expect(JSON.parse(traffic.text)).toEqual({ status: 'ready' });
    expect(traffic.text).not.toContain(SECRET);
    expect(traffic.text).not.toContain('billing');

    const detail = await get(`${gateway.adminUrl}/readyz`, admin);
    expect(detail.status).toBe(200);
    const body = JSON.parse(detail.text) as { status: string; lastReload: { ok: boolean; errors: string[] } };
    expect(body.status).toBe('ready');
    expect(body.lastReload.ok).toBe(false);
    expect(body.lastReload.errors.join('\n')).toContain('YAML syntax');
    // Without the token the admin listener says nothing at all.
    expect((await get(`${gateway.adminUrl}/readyz`)).status).toBe(401);
  });

  it('waiting for an agent hidden from anonymous /agents: 503, and its name nowhere', async () => {
    const dead = await deadUrl();
    const agents = [
      `  billing:\n    url: ${peer.url}\n    access: { allow: [ops] }`,
      `  hidden-ledger:\n    url: ${dead}\n    required: true\n    access: { allow: [ops] }`,
    ].join('\n');
    const { gateway } = await start('waiting', agents);

    const listed = await get(`${gateway.url}/agents`);
    expect(JSON.parse(listed.text)).toEqual({ agents: [] });

    const traffic = await get(`${gateway.url}/readyz`);
    expect(traffic.status).toBe(503);
    expect(JSON.parse(traffic.text)).toEqual({ status: 'not ready' });
    expect(traffic.text).not.toContain('hidden-ledger');
    expect(traffic.text).not.toContain('billing');

    const healthz = await get(`${gateway.url}/healthz`);
    expect(healthz).toEqual({ status: 200, text: '{"status":"ok"}' });

    const detail = await get(`${gateway.adminUrl}/readyz`, admin);
    expect(detail.status).toBe(503);
    expect(JSON.parse(detail.text)).toMatchObject({
      status: 'not ready',
      waitingForCards: expect.arrayContaining(['hidden-ledger']),
    });
  });
});
