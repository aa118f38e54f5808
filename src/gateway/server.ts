/**
 * The HTTP listener. A request whose `Host` is one of an agent's `hosts`, and `/agents/{name}/…`,
 * go straight to the agent pipeline on node:http —
 * the forwarding path is the product's hot path, and measurement (bench/RESULTS.md) showed a
 * fetch-API adapter in front of it costs several times its throughput. Everything else goes to
 * the hono control app. Both come from the config's current generation (src/gateway/generation.ts):
 * each request reads `handlers.current` once, so a reload is one reference swap, and a request
 * keeps the pipeline (agents, limits, access rules) it started on.
 */
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import type { Hono } from 'hono';
import { agentForHost, resolvePathRoute, type HostRoutes } from '../pipeline/route.js';
import { GatewayError } from '../errors/gateway-error.js';
import { REST_CONTEXT, sendGatewayError } from '../errors/json-answer.js';
import { refusalOf } from '../bindings/http/request-checks.js';
import type { PeerTrust } from '../transport/peer.js';
import { applyClientLimits, serverOptions, type ClientLimits } from '../transport/client-limits.js';
import { originFormOf, refuseConnect } from '../transport/request-target.js';

/** What one config generation answers traffic with. */
export interface TrafficHandlers {
  readonly handleAgentRequest: (
    req: IncomingMessage,
    res: ServerResponse,
    agent: string,
    rest: string,
    byHost: boolean,
  ) => Promise<void>;
  readonly agentNames: ReadonlySet<string>;
  /** Hostname → agent (`agents.{name}.hosts`), routed before paths. */
  readonly hostRoutes: HostRoutes;
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
    // An absolute-form target routed by its own authority and path (request-target.ts).
    const url = originFormOf(req);
    // Host routing first: the target as is (origin-form only, RFC 9112 §3.2.1; a `*` target goes
    // on to path routing and its refusal).
    const byHost = agentForHost(handlers.hostRoutes, req.headers.host);
    if (byHost !== undefined && url.startsWith('/')) return toAgent(deps, handlers, req, res, byHost, url, true);
    const route = resolvePathRoute(url);
    if (route.kind === 'agent') return toAgent(deps, handlers, req, res, route.agent, route.rest, false);
    // The agent pipeline checks its own requests (and answers in the caller's protocol).
    const refusal = refusalOf(req, handlers.trust.isTrusted(req.socket.remoteAddress), handlers.limits.headerCount);
    if (refusal) return sendGatewayError(res, refusal, REST_CONTEXT);
    if (route.kind === 'agent-no-slash' && handlers.agentNames.has(route.agent))
      return redirectToSlash(req, res, url, route.agent);
    void handlers.control(req, res);
  });
  server.on('connect', refuseConnect);
  applyClientLimits(server, deps.limits);
  return server;
}

/** The agent pipeline, unless the gateway drains. */
function toAgent(
  deps: ServerDeps,
  handlers: TrafficHandlers,
  req: IncomingMessage,
  res: ServerResponse,
  agent: string,
  rest: string,
  byHost: boolean,
): void {
  if (deps.isDraining()) {
    sendGatewayError(
      res,
      new GatewayError('SHUTTING_DOWN', 'the gateway is shutting down; retry on another instance'),
      REST_CONTEXT,
      { connection: 'close' },
    );
    return;
  }
  void handlers.handleAgentRequest(req, res, agent, rest, byHost);
}

/**
 * `/agents/{name}` without the slash: an A2A client resolves `.well-known/agent-card.json` one
 * level up (URL resolution, RFC 3986 §5.2). GET/HEAD can safely be redirected; anything else is told.
 */
function redirectToSlash(req: IncomingMessage, res: ServerResponse, url: string, agent: string): void {
  const query = url.includes('?') ? url.slice(url.indexOf('?')) : '';
  const target = `/agents/${encodeURIComponent(agent)}/${query}`;
  if (req.method === 'GET' || req.method === 'HEAD') {
    res.writeHead(308, { location: target, 'content-type': 'application/json' });
    res.end(JSON.stringify({ redirect: target, message: `use the agent URL with a trailing slash: ${target}` }));
    return;
  }
  sendGatewayError(
    res,
    new GatewayError('AGENT_NOT_FOUND', `use the agent URL with a trailing slash: ${target}`, { agent }),
    REST_CONTEXT,
  );
}
