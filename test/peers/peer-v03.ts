// A real native @a2a-js/sdk 0.3.14 agent (A2A 0.3) on loopback, same script as the 1.3.0 peer.
// 0.3.14 serves JSON-RPC and HTTP+JSON; its REST routes are the 0.3 `/v1/...` ones
// (`POST <rest>/v1/message:send`, `GET <rest>/v1/tasks/{id}`, `GET <rest>/v1/card`, ...).
import express from 'express';
import type { AgentCard } from 'a2a-sdk-v03';
import { DefaultRequestHandler, InMemoryTaskStore } from 'a2a-sdk-v03/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from 'a2a-sdk-v03/server/express';
import { boundPort, closeServer, joinPath, listen } from '../../src/demo/http.js';
import { CARD_PATH, JSONRPC_PATH, REST_PATH } from '../../src/demo/host.js';
import { PeerV03Executor } from './peer-v03-agent.js';
import { PEER_SKILL, recordRequests, type Peer, type PeerOptions, type RecordedRequest } from './peer-common.js';

export type PeerV03Options = PeerOptions;

export async function startPeerV03(opts: PeerV03Options = {}): Promise<Peer> {
  const requests: RecordedRequest[] = [];
  const prefix = opts.prefix ?? '';
  const app = express();
  app.use(recordRequests(requests));
  const server = await listen(app, '127.0.0.1', 0);
  const port = boundPort(server);
  const url = `http://127.0.0.1:${port}${joinPath(prefix, '/').replace(/\/$/, '')}`;

  const card = peerCard(url, opts.streaming ?? true, opts.extendedCard === true);
  const executor = new PeerV03Executor({ stepMs: opts.stepMs ?? 150, slowMs: opts.slowMs ?? 8000 });
  const extended: AgentCard | undefined = opts.extendedCard ? { ...card, name: `${card.name} (extended)` } : undefined;
  // Function form: 0.3.14 serves the object form only to authenticated users.
  const handler = new DefaultRequestHandler(
    card,
    new InMemoryTaskStore(),
    executor,
    undefined,
    undefined,
    undefined,
    extended ? async () => extended : undefined,
  );

  const routes = express.Router();
  routes.use(CARD_PATH, agentCardHandler({ agentCardProvider: handler }));
  routes.use(JSONRPC_PATH, jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  routes.use(REST_PATH, restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  app.use(joinPath(prefix, '/'), routes);

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (executor.runs.abortAll(), closeServer(server));
    return closing;
  };
  return { url, port, requests, close };
}

function peerCard(url: string, streaming: boolean, extendedCard: boolean): AgentCard {
  return {
    name: 'a2a-js peer (SDK 0.3.14)',
    description: 'Test peer built on @a2a-js/sdk 0.3.14 (A2A 0.3).',
    protocolVersion: '0.3.0',
    version: '1.0.0',
    url: url + JSONRPC_PATH,
    preferredTransport: 'JSONRPC',
    additionalInterfaces: [
      { url: url + JSONRPC_PATH, transport: 'JSONRPC' },
      { url: url + REST_PATH, transport: 'HTTP+JSON' },
    ],
    capabilities: { streaming, pushNotifications: true, stateTransitionHistory: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ ...PEER_SKILL, tags: [...PEER_SKILL.tags], examples: [...PEER_SKILL.examples] }],
    ...(extendedCard ? { supportsAuthenticatedExtendedCard: true } : {}),
  };
}
