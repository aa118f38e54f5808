/**
 * The README's client snippets (issue #30 item 7), run as printed: each ```ts block of "Sending an
 * API key or a bearer token" is written to a module with only the gateway's URL put in (and, for
 * the other way the block shows, its commented-out line swapped in), imported, and its `client`
 * sends a message through a gateway with `auth.apiKeys` to a real SDK agent (JSON-RPC, HTTP+JSON
 * and gRPC). With the key the call reaches the agent, without it the credential; with a wrong
 * key, or with the README's plain client (no credential), the gateway refuses it (401,
 * UNAUTHENTICATED) and the agent hears nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Client } from '@a2a-js/sdk/client';
import { startPeerV1, type PeerV1 } from '../peers/peer-v1.js';
import { sendRequestV1, userMessageV1 } from '../peers/clients.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import { ROOT } from '../deploy/manifests.js';
import { sha256Hex } from './support/fleet.js';
import { recordExchanges } from './support/harness.js';
import type { ExchangeRecord } from '../../src/exchange/record.js';

const KEY = 'readme-client-key-7Hq2xVb9';
const README_URL = 'http://127.0.0.1:8080/agents/code-reviewer/';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const section = readme.slice(readme.indexOf('### Sending an API key or a bearer token'));
const blocks = [...section.slice(0, section.indexOf('\n## ')).matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
/** The README's first client: no credential. */
const plain = /```ts\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf('## Pointing an A2A client')))![1]!;

let peer: PeerV1;
let gateway: RunningGateway;
let modules = 0;
const recorded = recordExchanges();

beforeAll(async () => {
  peer = await startPeerV1({ stepMs: 20, grpc: true });
  gateway = await startTestGateway(
    { 'code-reviewer': { url: peer.url, grpc: { listen: { port: 0 } } } },
    { auth: { apiKeys: { 'readme-client': { sha256: sha256Hex(KEY) } } } },
    [recorded.observer],
  );
  process.env['A2A_API_KEY'] = KEY;
});
afterAll(async () => {
  delete process.env['A2A_API_KEY'];
  await gateway?.close();
  await peer?.close();
});

/** The other way a block shows: its commented-out line `// <alternative>` replaces the line above. */
function otherWay(code: string): string {
  const lines = code.split('\n');
  const at = lines.findIndex((l) => /^\s*\/\/ (headers: |const credential )/.test(l));
  expect(at, 'a commented-out alternative').toBeGreaterThan(0);
  lines[at - 1] = lines[at]!.replace('// ', '');
  lines.splice(at, 1);
  return lines.join('\n');
}

/** Runs a snippet as a module (under the repository, so its imports resolve) and returns its client. */
async function clientOf(code: string): Promise<Client> {
  expect(code).toContain(README_URL);
  const dir = join(ROOT, 'test-output', 'readme-client');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `snippet-${process.pid}-${modules++}.ts`);
  writeFileSync(file, `${code.replaceAll(README_URL, `${gateway.url}/agents/code-reviewer/`)}\nexport { client };\n`);
  return ((await import(pathToFileURL(file).href)) as { client: Client }).client;
}

const send = (client: Client) =>
  client.sendMessage(sendRequestV1(userMessageV1('hello from the README')), { signal: AbortSignal.timeout(10_000) });

/** The gateway's record of the one call it refused since `since` records (once it has finished). */
async function refusal(since: number): Promise<ExchangeRecord> {
  const deadline = Date.now() + 5000;
  let found: ExchangeRecord[] = [];
  while ((found = recorded.records.slice(since).filter((r) => r.access?.denied)).length === 0) {
    if (Date.now() > deadline) throw new Error('no refused exchange recorded');
    await new Promise((r) => setTimeout(r, 20));
  }
  expect(found).toHaveLength(1);
  return found[0]!;
}

/** The agent's calls (not the gateway's card fetches) since `since`. */
const agentCalls = (since: number) =>
  peer.requests.slice(since).filter((r) => !r.path.includes('.well-known') && r.method === 'POST');

describe('the README client snippets', () => {
  it('are there: one for JSON-RPC and HTTP+JSON, one for gRPC, and both header styles', () => {
    expect(blocks).toHaveLength(2);
    expect(blocks[0]).toContain('createAuthenticatingFetchWithRetry');
    expect(blocks[1]).toContain('GrpcTransportFactory');
    for (const block of blocks) expect(block).toContain('process.env.A2A_API_KEY');
    expect(blocks.join('\n')).toMatch(/Authorization: `Bearer \$\{key\}`/);
    expect(blocks.join('\n')).toMatch(/'X-API-Key': key/);
    expect(blocks.join('\n')).toMatch(/'x-api-key': key/);
    expect(blocks.join('\n')).toMatch(/authorization: `Bearer \$\{key\}`/);
  });

  const CASES = [
    { name: 'JSON-RPC, Authorization: Bearer', block: 0, other: false, transport: 'JSONRPC' },
    { name: 'JSON-RPC, X-API-Key', block: 0, other: true, transport: 'JSONRPC' },
    { name: 'HTTP+JSON, Authorization: Bearer', block: 0, other: false, transport: 'HTTP+JSON' },
    { name: 'HTTP+JSON, X-API-Key', block: 0, other: true, transport: 'HTTP+JSON' },
    { name: 'gRPC, x-api-key metadata', block: 1, other: false, transport: 'GRPC' },
    { name: 'gRPC, authorization: Bearer metadata', block: 1, other: true, transport: 'GRPC' },
  ] as const;

  const snippet = (c: (typeof CASES)[number]) => {
    let code = c.other ? otherWay(blocks[c.block]!) : blocks[c.block]!;
    if (c.transport === 'HTTP+JSON') {
      expect(code).toContain("preferredTransports: ['JSONRPC'], // or 'HTTP+JSON'");
      code = code.replace("preferredTransports: ['JSONRPC']", "preferredTransports: ['HTTP+JSON']");
    }
    return code;
  };

  for (const c of CASES) {
    it(`${c.name}: the call reaches the agent, without the credential`, async () => {
      const since = peer.requests.length;
      const client = await clientOf(snippet(c));
      expect(client.transport.protocolName).toBe(c.transport);
      const result = await send(client);
      expect(result).toBeDefined();
      const calls = agentCalls(since);
      expect(calls.length).toBeGreaterThan(0);
      for (const r of calls) {
        expect(r.headers['authorization']).toBeUndefined();
        expect(r.headers['x-api-key']).toBeUndefined();
        expect(JSON.stringify(r.headers)).not.toContain(KEY);
      }
    });

    it(`${c.name}: a wrong key is refused by the gateway (401), the agent hears nothing`, async () => {
      const [since, sinceRecords] = [peer.requests.length, recorded.records.length];
      process.env['A2A_API_KEY'] = 'not-the-configured-key-0000';
      try {
        const client = await clientOf(snippet(c));
        await expect(send(client)).rejects.toThrow(/credentials were not accepted/);
      } finally {
        process.env['A2A_API_KEY'] = KEY;
      }
      const refused = await refusal(sinceRecords);
      expect(refused.access?.denied).toBe('invalid-key');
      // HTTP: 401; gRPC answers HTTP 200 with grpc-status 16 (UNAUTHENTICATED).
      if (c.transport !== 'GRPC') expect(refused.status).toBe(401);
      expect(agentCalls(since)).toEqual([]);
    });
  }

  it('the README’s plain client, with no credential, is refused (401) and reaches no agent', async () => {
    const [since, sinceRecords] = [peer.requests.length, recorded.records.length];
    const client = await clientOf(plain);
    await expect(send(client)).rejects.toThrow(/authentication required/);
    const refused = await refusal(sinceRecords);
    expect(refused.access?.denied).toBe('missing');
    expect(refused.status).toBe(401);
    expect(agentCalls(since)).toEqual([]);
  });
});
