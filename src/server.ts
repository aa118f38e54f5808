/**
 * The HTTP listener. `/agents/{name}/…` goes straight to the agent pipeline on node:http —
 * the forwarding path is the product's hot path, and measurement (bench/RESULTS.md) showed a
 * fetch-API adapter in front of it costs several times its throughput. Everything else goes to
 * the hono control app. Both come from the config's current generation (src/reload/generation.ts):
 * each request reads `handlers.current` once, so a reload is one reference swap, and a request
 * keeps the pipeline (agents, limits, access rules) it started on.
 */
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import type { Hono } from 'hono';
import { resolvePathRoute } from './proxy/route.js';
import { GatewayError } from './transport/errors.js';
import { REST_CONTEXT, sendGatewayError } from './proxy/error-response.js';
import { refusalOf } from './proxy/request-checks.js';
import type { PeerTrust } from './proxy/public-url.js';
import { applyClientLimits, serverOptions, type ClientLimits } from './transport/client-limits.js';

/** What one config generation answers traffic with. */
export interface TrafficHandlers {
  readonly handleAgentRequest: (
    req: IncomingMessage,
    res: ServerResponse,
    agent: string,
    rest: string,
  ) => Promise<void>;
  readonly agentNames: ReadonlySet<string>;
  /** The hono control app, as a node:http listener (`trafficHandlers` makes it). */
  readonly control: RequestListener;
  readonly trust: PeerTrust;
  readonly limits: ClientLimits;
}

export interface ServerDeps {
  /** Swapped by a reload; read once per request. */
  readonly handlers: { readonly current: TrafficHandlers };
  readonly isDraining: () => boolean;
  /** The limits the listener is made with (a reload retunes what Node allows: client-limits.ts). */
  readonly limits: ClientLimits;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function trafficHandlers(parts: Omit<TrafficHandlers, 'control'> & { control: Hono<any> }): TrafficHandlers {
  return { ...parts, control: getRequestListener(parts.control.fetch) };
}

export function createGatewayServer(deps: ServerDeps): Server {
  const server = createServer(serverOptions(deps.limits), (req, res) => {
    const handlers = deps.handlers.current;
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
      void handlers.handleAgentRequest(req, res, route.agent, route.rest);
      return;
    }
    // The agent pipeline checks its own requests (and answers in the caller's protocol).
    const refusal = refusalOf(req, handlers.trust.isTrusted(req), handlers.limits.headerCount);
    if (refusal) return sendGatewayError(res, refusal, REST_CONTEXT);
    if (route.kind === 'agent-no-slash' && handlers.agentNames.has(route.agent)) {
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
    void handlers.control(req, res);
  });
  applyClientLimits(server, deps.limits);
  return server;
}
