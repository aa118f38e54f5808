/** A test agent that breaks the protocol on purpose, for the console's findings (scripted-upstream.ts handler). */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** A 1.0 agent whose SendMessage result carries both a task and a message (finding a2a.send-result-shape). */
export function misbehaving(url: () => string) {
  return (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          name: 'bad',
          description: 'answers both',
          version: '1',
          supportedInterfaces: [{ url: url(), protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
          capabilities: {},
          defaultInputModes: ['text/plain'],
          defaultOutputModes: ['text/plain'],
          skills: [],
        }),
      );
      return;
    }
    req.resume();
    req.on('end', () => {
      const task = { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_COMPLETED' } };
      const message = { messageId: 'm1', contextId: 'c1', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { task, message } }));
    });
  };
}
