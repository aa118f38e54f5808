/**
 * The gRPC listeners: HTTP/2 cleartext (h2c) servers, the shared one
 * (`listen.grpc`, routed by `:authority` through `agents.{name}.hosts`) and one per agent with
 * `grpc.listen` (every call on it is that agent's). What one client may hold is bounded by Node's
 * HTTP/2 settings, set from `limits` (principle 19): concurrent streams per connection, header
 * list size and pairs, session memory (past it Node refuses new streams with
 * ENHANCE_YOUR_CALM), the connection caps of the HTTP listener, and an idle timeout. Node's
 * http2 also bounds unacknowledged PINGs and SETTINGS (its defaults are kept). Streams a client
 * resets before their answer started (HTTP/2 rapid reset) are counted per connection and per
 * client address, which past `limits.grpc.prematureResets` / `prematureResetsPerClient` are sent
 * GOAWAY and closed (reset-guard.ts). A PING every `limits.grpc.ping` on connections with open calls is
 * the gRPC counterpart of the SSE keepalive comment: proxies and NATs do not drop a quiet stream.
 */
import {
  createServer,
  type Http2Server,
  type Http2ServerRequest,
  type Http2ServerResponse,
  type ServerHttp2Session,
} from 'node:http2';
import type { Socket } from 'node:net';
import { GatewayError } from '../../errors/gateway-error.js';
import type { ClientLimits } from '../../transport/client-limits.js';
import { capPerClient } from '../../transport/client-limits.js';
import { grpcFailureOf, sendGrpcFailure } from '../../errors/grpc-answer.js';
import { normalizeAddress } from '../../transport/peer.js';
import { ClientResetBudget, watchResets } from './reset-guard.js';

/** What the current config generation answers gRPC with (read once per call). */
export interface GrpcHandlers {
  /** The one pipeline on the gRPC binding (src/pipeline/pipeline.ts); `agent` as routed here. */
  readonly handleGrpcCall: (
    req: Http2ServerRequest,
    res: Http2ServerResponse,
    agent: string | undefined,
  ) => Promise<void>;
  /** The agent `:authority` names (agents.{name}.hosts), if any. */
  readonly agentForAuthority: (authority: string | undefined) => string | undefined;
}

export interface GrpcListenerDeps {
  readonly handlers: { readonly current: GrpcHandlers };
  readonly isDraining: () => boolean;
  readonly limits: ClientLimits;
  /** A per-agent listener: every call is this agent's. */
  readonly agent?: string;
  /** Premature resets per client address, shared by every gRPC listener (reset-guard.ts). */
  readonly resets?: ClientResetBudget;
}

const MIB = 1024 * 1024;

/** A listening gRPC server and its client connections (for a graceful close). */
export interface GrpcListener {
  readonly server: Http2Server;
  readonly sessions: ReadonlySet<ServerHttp2Session>;
}

export function createGrpcListener(deps: GrpcListenerDeps): GrpcListener {
  const { limits } = deps;
  const sessions = new Set<ServerHttp2Session>();
  const resets = deps.resets ?? new ClientResetBudget(limits.grpc.prematureResetsPerClient);
  const server = createServer(
    {
      settings: {
        maxConcurrentStreams: limits.grpc.concurrentStreams,
        // Advertised, and enforced by Node once the client acknowledges it (RFC 9113 §6.5.3);
        // the binding's head check refuses a larger list either way (header-list.ts).
        maxHeaderListSize: limits.headerBytes,
        enablePush: false,
      },
      maxSessionMemory: Math.max(1, Math.ceil(limits.grpc.sessionMemory / MIB)),
      // Pseudo-headers count as pairs too (Node's default is 128).
      maxHeaderListPairs: limits.headerCount + 8,
    },
    (req, res) => onCall(deps, req, res),
  );
  server.maxConnections = limits.connections;
  if (limits.connectionsPerClient > 0) capPerClient(server, limits.connectionsPerClient);
  if (resets.enabled) {
    // A client past its reset budget is refused as it connects, before anything is read.
    server.on('connection', (socket: Socket) => {
      if (resets.refused(normalizeAddress(socket.remoteAddress))) socket.destroy();
    });
  }
  server.on('session', (session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
    watchSession(session, limits);
    watchResets(session, limits.grpc.prematureResets, resets);
  });
  return { server, sessions };
}

function onCall(deps: GrpcListenerDeps, req: Http2ServerRequest, res: Http2ServerResponse): void {
  if (deps.isDraining()) {
    req.resume();
    sendGrpcFailure(
      res,
      grpcFailureOf(new GatewayError('SHUTTING_DOWN', 'the gateway is shutting down; retry on another instance')),
    );
    return;
  }
  const handlers = deps.handlers.current;
  const agent = deps.agent ?? handlers.agentForAuthority(req.headers[':authority']);
  void handlers.handleGrpcCall(req, res, agent);
}

/**
 * The idle timeout, and PINGs while calls are open. The idle clock restarts when the last call
 * ends: Node's session timer may have fired while a call was still open (and done nothing), and
 * nothing else need cross the socket after it.
 */
function watchSession(session: ServerHttp2Session, limits: ClientLimits): void {
  let open = 0;
  const idleMs = limits.grpc.idleTimeout;
  const onIdle = () => {
    if (open === 0) session.close();
  };
  session.setTimeout(idleMs, onIdle);
  session.on('error', () => session.destroy());
  const ping = limits.grpc.ping;
  let timer: NodeJS.Timeout | undefined;
  session.on('stream', (stream) => {
    open++;
    if (ping > 0) {
      timer ??= setInterval(() => {
        if (!session.destroyed) session.ping(() => {});
      }, ping).unref();
    }
    stream.once('close', () => {
      if (--open > 0) return;
      clearInterval(timer);
      timer = undefined;
      if (!session.destroyed && !session.closed) session.setTimeout(idleMs, onIdle);
    });
  });
  session.once('close', () => clearInterval(timer));
}

/**
 * Stops accepting and sends every connection GOAWAY: calls in flight run on to their end (the
 * gateway's drain waits for their exchanges), new ones go elsewhere. `now` destroys what is left.
 */
export function closeGrpcListener(listener: GrpcListener, now = false): Promise<void> {
  const { server, sessions } = listener;
  if (!server.listening) return Promise.resolve();
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  for (const session of sessions) {
    if (now) session.destroy();
    else session.close();
  }
  return closed;
}
