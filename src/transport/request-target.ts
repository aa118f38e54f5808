/**
 * Request targets that are not origin-form (RFC 9112 §3.2). An absolute-form target
 * (`GET http://host/path`, §3.2.2) is what a client sends to a proxy; a server must accept it and
 * take the host from it, ignoring the Host header — as nginx and Envoy do. It is turned into the
 * origin-form the router reads (issue #29). CONNECT (§3.2.3) asks for a tunnel, which the gateway
 * never is: 405, and the connection closed.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { GatewayError } from '../errors/gateway-error.js';
import { errorBody, REST_CONTEXT } from '../errors/json-answer.js';

const ABSOLUTE = /^https?:\/\/([^/?#@]+)([^#]*)$/i;

/**
 * The request's origin-form target. An absolute-form one becomes its path (and query), and its
 * authority the request's Host; any other target is returned as it came (the router and the
 * request checks answer it). Costs one character test for an origin-form target.
 */
export function originFormOf(req: IncomingMessage): string {
  const url = req.url ?? '/';
  if (url.charCodeAt(0) === 47 /* / */) return url;
  const m = ABSOLUTE.exec(url);
  if (!m) return url;
  const path = m[2] === '' ? '/' : m[2]!.startsWith('?') ? `/${m[2]}` : m[2]!;
  req.headers.host = m[1]!.toLowerCase();
  req.url = path;
  return path;
}

const NOT_A_TUNNEL = new GatewayError('METHOD_NOT_ALLOWED', 'CONNECT is not served: the gateway is not a tunnel');

/** The `connect` event's answer: 405 in the REST error shape, and the connection closed. */
export function refuseConnect(_req: IncomingMessage, socket: Duplex): void {
  const body = errorBody(NOT_A_TUNNEL, REST_CONTEXT);
  socket.on('error', () => {});
  socket.end(
    'HTTP/1.1 405 Method Not Allowed\r\nallow: GET, HEAD, POST, DELETE\r\ncontent-type: application/json\r\n' +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}
