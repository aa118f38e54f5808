/**
 * The HTTP listener. `/agents/{name}/…` goes straight to the agent pipeline on node:http —
 * the forwarding path is the product's hot path, and measurement (bench/RESULTS.md) showed a
 * fetch-API adapter in front of it costs several times its throughput. Everything else goes to
 * the hono control app.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import type { Hono } from 'hono';
import { resolvePathRoute } from './proxy/route.js';
import { GatewayError } from './transport/errors.js';
import { REST_CONTEXT, sendGatewayError } from './proxy/error-response.js';
import { refusalOf } from './proxy/request-checks.js';
import type { PeerTrust } from './proxy/public-url.js';
import { applyClientLimits, serverOptions, type ClientLimits } from './transport/client-limits.js';

export interface ServerDeps {
  readonly handleAgentRequest: (
    req: IncomingMessage,
    res: ServerResponse,
    agent: string,
    rest: string,
  ) => Promise<void>;
  readonly agentNames: ReadonlySet<string>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly control: Hono<any>;
  readonly isDraining: () => boolean;
  readonly trust: PeerTrust;
  readonly limits: ClientLimits;
}

export function createGatewayServer(deps: ServerDeps): Server {
  const control = getRequestListener(deps.control.fetch);
  const server = createServer(serverOptions(deps.limits), (req, res) => {
    const url = req.url ?? '/';
    const route = resolvePathRoute(url);
    if (route.kind === 'agent') {
      if (deps.isDraining()) {
        sendGatewayError(
          res,
          new GatewayError('SHUTTING_DOWN', 'the gateway is shutting down; retry on another instance'),
          REST_CONTEXT,
          { connection: 'close' },
        );
        return;
      }
      void deps.handleAgentRequest(req, res, route.agent, route.rest);
      return;
    }
    // The agent pipeline checks its own requests (and answers in the caller's protocol).
    const refusal = refusalOf(req, deps.trust.isTrusted(req), deps.limits.headerCount);
    if (refusal) return sendGatewayError(res, refusal, REST_CONTEXT);
    if (route.kind === 'agent-no-slash' && deps.agentNames.has(route.agent)) {
      // Without the slash an A2A client resolves `.well-known/agent-card.json` one level up
      // (URL resolution, RFC 3986 §5.2). GET/HEAD can safely be redirected; anything else is told.
      const query = url.includes('?') ? url.slice(url.indexOf('?')) : '';
      const target = `/agents/${encodeURIComponent(route.agent)}/${query}`;
      if (req.method === 'GET' || req.method === 'HEAD') {
        res.writeHead(308, { location: target, 'content-type': 'application/json' });
        res.end(JSON.stringify({ redirect: target, message: `use the agent URL with a trailing slash: ${target}` }));
      } else {
        sendGatewayError(
          res,
          new GatewayError('AGENT_NOT_FOUND', `use the agent URL with a trailing slash: ${target}`, {
            agent: route.agent,
          }),
          REST_CONTEXT,
        );
      }
      return;
    }
    void control(req, res);
  });
  applyClientLimits(server, deps.limits);
  return server;
}
