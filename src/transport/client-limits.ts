/**
 * Limits on what a client can hold open (principle 19), applied to the listener: Node's own
 * timeouts and caps, switched on with the config's values, and a per-address connection cap.
 * Refusals that come before a request head is complete cannot know the caller's protocol, so
 * they are answered with the A2A REST error body (wire-reference §4.2), as Node would with an
 * empty one.
 */
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Server as NetServer, Socket } from 'node:net';
import type { GatewayConfig } from '../config/schema.js';
import { GatewayError, type GatewayErrorReason } from '../errors/gateway-error.js';
import { errorBody, REST_CONTEXT } from '../errors/json-answer.js';
import { normalizeAddress } from './peer.js';

export type ClientLimits = GatewayConfig['limits'];

/** Options for `http.createServer`. */
export function serverOptions(limits: ClientLimits) {
  return {
    keepAliveTimeout: limits.keepAliveTimeout,
    headersTimeout: limits.headersTimeout,
    requestTimeout: limits.requestTimeout,
    maxHeaderSize: limits.headerBytes,
    // Node checks the two timeouts above this often (its default, 30 s, would let a 10 s limit run to 40 s).
    connectionsCheckingInterval: Math.max(250, Math.min(1000, limits.headersTimeout / 4)),
  };
}

export function applyClientLimits(server: Server, limits: ClientLimits): void {
  server.maxConnections = limits.connections;
  // One more than allowed, so that a request with too many is seen (and refused), not truncated.
  server.maxHeadersCount = limits.headerCount + 1;
  server.on('clientError', answerClientError);
  if (limits.connectionsPerClient > 0) capPerClient(server, limits.connectionsPerClient);
}

/**
 * A reload's new limits on a live listener: what Node reads from the server object as it goes
 * (the timeouts at each check or response, the connection and header-count caps per connection
 * or request). `headerBytes` and `connectionsPerClient` are fixed when the listener is made
 * (src/reload/restart-only.ts).
 */
export function retuneClientLimits(server: Server, limits: ClientLimits): void {
  server.headersTimeout = limits.headersTimeout;
  server.requestTimeout = limits.requestTimeout;
  server.keepAliveTimeout = limits.keepAliveTimeout;
  server.maxConnections = limits.connections;
  server.maxHeadersCount = limits.headerCount + 1;
}

export function capPerClient(server: NetServer, cap: number): void {
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = normalizeAddress(socket.remoteAddress);
    const count = (open.get(address) ?? 0) + 1;
    if (count > cap) {
      socket.destroy(); // refused early and cheaply: nothing has been read yet
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  });
}

const CLIENT_ERRORS: Readonly<Record<string, readonly [GatewayErrorReason, string]>> = {
  HPE_HEADER_OVERFLOW: ['HEADERS_TOO_LARGE', 'the request head is larger than the gateway accepts'],
  ERR_HTTP_REQUEST_TIMEOUT: ['REQUEST_TIMEOUT', 'the request was not received in time'],
  ERR_HTTP_HEADERS_TIMEOUT: ['REQUEST_TIMEOUT', 'the request head was not received in time'],
};

/** Node's default answers these with an empty 400/408/431; this one says why, in A2A's REST shape. */
function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
  const [reason, message] = CLIENT_ERRORS[err.code ?? ''] ?? ['REQUEST_INVALID', 'the request is not valid HTTP/1.1'];
  const error = new GatewayError(reason, message);
  const body = errorBody(error, REST_CONTEXT);
  const head = [
    `HTTP/1.1 ${error.status} ${STATUS_TEXT[error.status] ?? 'Bad Request'}`,
    'content-type: application/a2a+json',
    `content-length: ${Buffer.byteLength(body)}`,
    'cache-control: no-store',
    'connection: close',
  ];
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
}

const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};
