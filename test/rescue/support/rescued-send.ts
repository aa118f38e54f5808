/** A blocking JSON-RPC SendMessage through a gateway that rescues it by polling, for the tests of what the rescue's answer carries. */
import { request } from 'undici';
import type { IncomingHttpHeaders } from 'node:http';
import { startTestGateway } from '../../support/gateway.js';

export interface RescuedAnswer {
  readonly headers: IncomingHttpHeaders;
  readonly doc: { result: Record<string, unknown> };
}

/** Sends to the agent at `agentUrl` (its JSON-RPC endpoint at `/rpc`), with `headers` added; the gateway is closed after. */
export async function rescuedSend(agentUrl: string, headers: Record<string, string> = {}): Promise<RescuedAnswer> {
  const gateway = await startTestGateway({
    a: {
      url: agentUrl,
      timeoutRescue: { enabled: true, strategy: 'poll', clientTimeout: '10s', pollInitial: '50ms', pollMax: '50ms' },
    },
  });
  try {
    const res = await request(`${gateway.url}/agents/a/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'r1',
        method: 'SendMessage',
        params: { message: { messageId: 'm-rescued', role: 'ROLE_USER', parts: [{ text: 'hi' }] } },
      }),
    });
    return { headers: res.headers, doc: (await res.body.json()) as RescuedAnswer['doc'] };
  } finally {
    await gateway.close();
  }
}
