/**
 * A card nested far deeper than any card (issue #29, item 6): JSON.parse takes it, but rewriting
 * and serialising it would overflow the stack. The gateway reports it as an invalid card (502
 * UPSTREAM_INVALID, "nested too deep"), never as a reset connection, and stays up for the rest.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptedUpstream } from '../support/scripted-upstream.js';
import { startTestGateway } from '../support/gateway.js';
import { within } from '../peers/deadline.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';

const DEPTH = 100_000;
const deepCard = `{"name":"deep","a":${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}}`;

let agent: { url: string; close: () => Promise<void> };
let gateway: RunningGateway;

beforeAll(async () => {
  agent = await scriptedUpstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(deepCard);
  });
  gateway = await startTestGateway({ deep: { url: agent.url } });
});
afterAll(async () => {
  await gateway?.close();
  await agent?.close();
});

describe('a card nested 100,000 deep', () => {
  it('is an invalid card (502 UPSTREAM_INVALID), not a reset', async () => {
    const res = await fetch(`${gateway.url}/agents/deep/.well-known/agent-card.json`, within(5000));
    expect(res.status).toBe(502);
    const body = (await res.json()) as { error: { message: string; details?: { reason: string }[] } };
    expect(JSON.stringify(body)).toContain('UPSTREAM_INVALID');
    expect(body.error.message).toMatch(/nested/);
  });

  it('shows as a card error on the admin catalog, and the gateway keeps serving', async () => {
    const admin = (await (await fetch(`${gateway.adminUrl}/agents`, within(5000))).json()) as {
      agents: { name: string; cardError?: string }[];
    };
    expect(admin.agents.find((a) => a.name === 'deep')?.cardError).toMatch(/nested/);
    expect((await fetch(`${gateway.url}/healthz`, within(2000))).status).toBe(200);
  });
});
