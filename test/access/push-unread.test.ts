/**
 * A request too large to be read whole before forwarding may hide a push webhook past the read
 * ahead (64 KiB): the gateway refuses it where the agent would take one — any
 * CreateTaskPushNotificationConfig, and a SendMessage to an agent whose card advertises push
 * notifications (or whose card it cannot read) — and forwards it to an agent that sends none.
 */
import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import { startTestGateway } from '../support/gateway.js';
import { scriptedUpstream } from '../support/scripted-upstream.js';

interface Agent {
  url: string;
  close: () => Promise<void>;
  heard: string[];
}

async function agent(pushNotifications: boolean): Promise<Agent> {
  const heard: string[] = [];
  const upstream = await scriptedUpstream((req: IncomingMessage, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url?.startsWith('/.well-known/')) {
        const card = {
          name: 'a',
          supportedInterfaces: [{ url: 'http://127.0.0.1:1/', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
          capabilities: { pushNotifications },
        };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(card));
        return;
      }
      heard.push(`${req.method} ${req.url}`);
      const message = { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'ok' }] };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { message } }));
    });
  });
  return { ...upstream, heard };
}

/** A SendMessage whose 2 MiB part comes before a push config at a private address. */
function bigSend(): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'SendMessage',
    params: {
      message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'x'.repeat(2 * 1024 * 1024) }] },
      configuration: { taskPushNotificationConfig: { url: 'http://169.254.169.254/latest' } },
    },
  });
}

let pushing: Agent;
let silent: Agent;
let gateway: RunningGateway;

beforeAll(async () => {
  [pushing, silent] = await Promise.all([agent(true), agent(false)]);
  gateway = await startTestGateway({ pushing: { url: pushing.url }, silent: { url: silent.url } });
});
afterAll(async () => {
  await gateway.close();
  await Promise.all([pushing.close(), silent.close()]);
});

const post = (path: string, body: string) =>
  fetch(`${gateway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

describe('a push config past the read ahead', () => {
  it('is refused (InvalidParams, push-config-unread) for an agent that sends push notifications', async () => {
    const res = await post('/agents/pushing/', bigSend());
    const body = (await res.json()) as { error: { code: number; data: Array<{ metadata: { rule: string } }> } };
    expect(body.error.code).toBe(-32602);
    expect(body.error.data[0]!.metadata.rule).toBe('push-config-unread');
    expect(pushing.heard).toEqual([]);
  });

  it('is forwarded to an agent whose card says it sends none', async () => {
    const res = await post('/agents/silent/', bigSend());
    expect(res.status).toBe(200);
    await res.text();
    expect(silent.heard).toEqual(['POST /']);
  });

  it('in a CreateTaskPushNotificationConfig is refused whatever the card says', async () => {
    const config = JSON.stringify({ id: 'c', token: 'x'.repeat(2 * 1024 * 1024), url: 'http://10.0.0.1/' });
    const res = await post('/agents/silent/tasks/t1/pushNotificationConfigs', config);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { details: Array<{ metadata: { rule: string } }> } };
    expect(body.error.details[0]!.metadata.rule).toBe('push-config-unread');
    expect(silent.heard).toEqual(['POST /']); // only the send of the test before
  });
});
