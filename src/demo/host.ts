// Hosts one @a2a-js/sdk 1.3.0 agent on its own express app and http server:
//   <base>/.well-known/agent-card.json   agent card
//   <base>/a2a/jsonrpc                   JSON-RPC binding
//   <base>/a2a/rest                      HTTP+JSON binding
// where <base> = http://host:port[prefix]. The server listens before the card is built
// because the card must carry absolute interface URLs, and the port may be ephemeral.
import type http from 'node:http';
import express from 'express';
import { A2A_PROTOCOL_VERSION, type AgentCard, type AgentInterface } from '@a2a-js/sdk';
import {
  DefaultRequestHandler,
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
  type AgentExecutor,
} from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { duplicateInterfacesForLegacy } from '@a2a-js/sdk/compat/v0_3';
import { createLegacyAwarePushNotificationSender } from '@a2a-js/sdk/compat/v0_3/server';
import { boundPort, closeServer, joinPath, listen, urlHost } from './http.js';

/** An agent card without its interfaces: the host knows the URLs, the agent does not. */
export type CardTemplate = Omit<AgentCard, 'supportedInterfaces'>;

export interface HostOptions {
  /** Bind address (default 127.0.0.1). */
  host?: string;
  /** Port to bind, 0 = ephemeral (default 0). */
  port?: number;
  /** Mount the whole agent under this path, e.g. "/team/reviewer". */
  prefix?: string;
  card: CardTemplate;
  executor: AgentExecutor;
  /**
   * Turns on the SDK's v0.3 compatibility layer on every endpoint (card, JSON-RPC, REST) and
   * advertises each binding a second time with protocolVersion "0.3": the SDK only accepts
   * 0.3 traffic on a binding whose card declares it.
   */
  compatV03?: boolean;
  /** Derives the extended card from the public one; also sets capabilities.extendedAgentCard. */
  extendedCard?: (card: AgentCard) => AgentCard;
  /** Express middleware run before the A2A routes (e.g. request recording in tests). */
  middleware?: express.RequestHandler[];
  /** Called once on close(), before the sockets are dropped (e.g. to stop running tasks). */
  onClose?: () => void;
  /**
   * Interfaces served elsewhere (e.g. a gRPC server the caller runs on `requestHandler`),
   * listed after the HTTP ones; with compatV03 each binding here is advertised at 0.3 too.
   */
  extraInterfaces?: AgentInterface[];
}

export interface HostedAgent {
  /** Base URL, no trailing slash. */
  url: string;
  port: number;
  card: AgentCard;
  /** The one request handler behind every binding, so other bindings can share its tasks. */
  requestHandler: DefaultRequestHandler;
  server: http.Server;
  close(): Promise<void>;
}

export const JSONRPC_PATH = '/a2a/jsonrpc';
export const REST_PATH = '/a2a/rest';
export const CARD_PATH = '/.well-known/agent-card.json';

export async function hostAgent(opts: HostOptions): Promise<HostedAgent> {
  const host = opts.host ?? '127.0.0.1';
  const prefix = opts.prefix ?? '';
  const app = express();
  for (const mw of opts.middleware ?? []) app.use(mw);
  const server = await listen(app, host, opts.port ?? 0);
  const port = boundPort(server);
  const url = `http://${urlHost(host)}:${port}${joinPath(prefix, '/').replace(/\/$/, '')}`;

  const card = buildCard(opts, url);
  const extended = opts.extendedCard?.(card);
  const pushStore = new InMemoryPushNotificationStore();
  const handler = new DefaultRequestHandler(
    card,
    new InMemoryTaskStore(),
    opts.executor,
    undefined,
    pushStore,
    // Legacy-aware sender: webhooks registered over 0.3 get 0.3 bodies, 1.0 ones StreamResponses.
    opts.compatV03 ? createLegacyAwarePushNotificationSender(pushStore) : undefined,
    // Function form: served to every caller (the object form is only for authenticated users).
    extended ? async () => extended : undefined,
  );

  const legacyCompat = { enabled: opts.compatV03 === true };
  const routes = express.Router();
  routes.use(CARD_PATH, agentCardHandler({ agentCardProvider: handler, legacyCompat }));
  routes.use(
    JSONRPC_PATH,
    jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat }),
  );
  routes.use(
    REST_PATH,
    restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat }),
  );
  app.use(joinPath(prefix, '/'), routes);

  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    card,
    requestHandler: handler,
    server,
    close: () => {
      closing ??= (async () => {
        opts.onClose?.();
        await closeServer(server);
      })();
      return closing;
    },
  };
}

function buildCard(opts: HostOptions, baseUrl: string): AgentCard {
  const iface = (path: string, protocolBinding: string): AgentInterface => ({
    url: baseUrl + path,
    protocolBinding,
    tenant: '',
    protocolVersion: A2A_PROTOCOL_VERSION,
  });
  const v1 = [iface(JSONRPC_PATH, 'JSONRPC'), iface(REST_PATH, 'HTTP+JSON'), ...(opts.extraInterfaces ?? [])];
  const bindings = [...new Set(v1.map((i) => i.protocolBinding))];
  const supportedInterfaces = opts.compatV03 ? duplicateInterfacesForLegacy(v1, bindings) : v1;
  const { name, description, ...rest } = opts.card;
  const capabilities = {
    ...opts.card.capabilities,
    extensions: opts.card.capabilities?.extensions ?? [],
    extendedAgentCard: opts.extendedCard !== undefined,
  };
  // Same key order as the SDK's own cards (proto field order), so recordings diff cleanly.
  return { name, description, supportedInterfaces, ...rest, capabilities };
}
