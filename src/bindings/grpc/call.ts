/**
 * One gRPC call at the gateway: the HTTP/2 request and response (Node's compatibility API,
 * `Http2ServerRequest` / `Http2ServerResponse`) and the exchange record every binding shares.
 *
 * The exchange (src/exchange/exchange.ts), the body reader (src/pipeline/request-body.ts) and access
 * control (src/access/gate.ts) are written against node:http's request and response. Node's
 * HTTP/2 compatibility objects are made to stand in for those ("Compatibility API", Node docs:
 * headers, method, socket, the Readable request, writeHead/write/end, headersSent, statusCode,
 * destroy), and the gateway uses no member they lack; so the call hands them over as such, here
 * and nowhere else.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import { Exchange, type ObserverSet } from '../../exchange/exchange.js';
import type { Upstream } from '../../transport/upstream.js';

export interface GrpcCall {
  readonly req: Http2ServerRequest;
  readonly res: Http2ServerResponse;
  readonly exchange: Exchange;
}

export function openCall(
  req: Http2ServerRequest,
  res: Http2ServerResponse,
  upstream: Upstream,
  path: string,
  observers: ObserverSet,
): GrpcCall {
  const exchange = new Exchange(asHttp1(req), asHttp1(res), upstream, path, observers, path);
  return { req, res, exchange };
}

/** The compatibility object as the node:http type it stands in for (see the header). */
export function asHttp1(req: Http2ServerRequest): IncomingMessage;
export function asHttp1(res: Http2ServerResponse): ServerResponse;
export function asHttp1(value: Http2ServerRequest | Http2ServerResponse): IncomingMessage | ServerResponse {
  return value as unknown as IncomingMessage | ServerResponse;
}
