/**
 * The gRPC call pipeline (issue #16), the gRPC twin of src/proxy/pipeline.ts, in the order a
 * call travels:
 *   1. find the agent: the listener routed the call by its own port or by `:authority`
 *      (`agents.{name}.hosts`); none → NOT_FOUND, trailers-only
 *   2. check the head (POST, a gRPC content type) and open the exchange record
 *   3. read the request message (bounded: request-body.ts) and classify the call once: the
 *      same RequestFacts as the other bindings, `binding: grpc` (src/a2a/grpc/request.ts)
 *      3b. access control, the same gate as the other bindings (src/access/gate.ts)
 *   4. the upstream metadata: the HTTP headers' hygiene (src/transport/headers.ts), `te: trailers`,
 *      the deadline less the time spent; observers see them last (tracing adds `traceparent`)
 *   5. a blocking SendMessage to an agent with `timeoutRescue` → the timeout rescue
 *   6. else relay to the agent's gRPC interface (relay.ts); an extended card and, under task
 *      ownership, a ListTasks answer are held and rewritten (held-answer.ts)
 * Every refusal is a gRPC status (answer.ts); the exchange finishes exactly once.
 */
import type { Http2ServerRequest, Http2ServerResponse, OutgoingHttpHeaders } from 'node:http2';
import type { Upstream } from '../transport/upstream.js';
import { upstreamRequestHeaders } from '../transport/headers.js';
import { GatewayError } from '../transport/errors.js';
import type { ObserverSet } from '../exchange/exchange.js';
import type { InFlight } from '../exchange/in-flight.js';
import { RequestClassifier } from '../proxy/classify.js';
import { clientAddress, normalizeAddress, type PeerTrust } from '../proxy/public-url.js';
import { OPEN, type AccessGate } from '../access/gate.js';
import type { ClientLimits } from '../transport/client-limits.js';
import type { TaskTracker } from '../tasks/tracker.js';
import { asHttp1, openCall, type GrpcCall } from './call.js';
import { readGrpcBody } from './request-body.js';
import { grpcFailureOf, sendGrpcFailure } from './answer.js';
import { relayGrpc } from './relay.js';
import { formatGrpcTimeout, parseGrpcTimeout } from './timeout-header.js';
import type { GrpcAgents } from './agents.js';
import type { GrpcChannel } from './channel.js';
import { rescueGrpcCall } from './rescue.js';
import { rescueDecision } from '../rescue/decision.js';
import type { Admission } from '../access/gate.js';
import { isExtendedCardRequest } from '../proxy/extended-card.js';
import { grpcExtendedCardRewrite, type GrpcCardDeps } from './extended-card.js';
import type { HeldRewrite } from './held-answer.js';
import { grpcMethod } from '../a2a/grpc/methods.js';

export interface GrpcPipelineDeps {
  readonly upstreams: ReadonlyMap<string, Upstream>;
  readonly agents: GrpcAgents;
  readonly trust: PeerTrust;
  readonly observers: ObserverSet;
  readonly inFlight: InFlight;
  /** Most body bytes the request decoder reads (inspection's cap); 0: inspection is off. */
  readonly inspectBytes: number;
  readonly limits: ClientLimits;
  readonly access: AccessGate;
  readonly tracker: TaskTracker;
  /** Where extended cards' interfaces point (extended-card.ts). */
  readonly cards: GrpcCardDeps;
}

export type GrpcCallHandler = (
  req: Http2ServerRequest,
  res: Http2ServerResponse,
  agent: string | undefined,
) => Promise<void>;

/** Bytes of the gRPC message prefix (compressed flag, 4-byte length). */
const PREFIX_BYTES = 5;

export function createGrpcPipeline(deps: GrpcPipelineDeps): GrpcCallHandler {
  return async function handleGrpcCall(req, res, agent) {
    // 1. Which agent.
    const upstream = agent === undefined ? undefined : deps.upstreams.get(agent);
    if (!upstream) return refuseUnrouted(req, res);

    // 2. The head, and the exchange record.
    const path = req.url;
    const call = openCall(req, res, upstream, path, deps.observers);
    const { exchange } = call;
    const ticket = deps.inFlight.add(exchange);
    try {
      const refusal = checkHead(req);
      if (refusal) {
        req.resume(); // refused on its head: the body is not waited for (nor held, see request-body.ts)
        throw refusal;
      }
      // 3. The request message, and the call's one classification.
      const body = await readAndClassify(call, deps, upstream);
      const trusted = deps.trust.isTrusted(asHttp1(req));
      const admission = deps.access.passes(exchange)
        ? OPEN
        : await deps.access.admit(exchange, clientAddress(asHttp1(req), trusted));

      // 4. What the agent gets; observers may add to it.
      const rewrite = answerRewrite(call, deps, upstream, admission);
      const metadata = agentMetadata(call, trusted, heldStrip(admission.stripHeaders, rewrite));
      exchange.emit('onForward', metadata);
      const deadline = deadlineOf(req, exchange.record.startedAt);
      const channel = await deps.agents.channelFor(upstream, exchange.request?.version ?? '1.0');

      // 5. Timeout rescue for blocking sends.
      const send = rescueDecision(exchange.request, upstream.config.timeoutRescue);
      if (send) {
        const headers = (rpcPath: string, leftMs: number) => h2Headers(rpcPath, channel, metadata, leftMs);
        const maxBytes = deps.limits.grpc.messageBytes;
        return await rescueGrpcCall({ call, send, body, channel, headers, deadline, tracker: deps.tracker, maxBytes });
      }

      // 6. Relay.
      const left = deadline === undefined ? undefined : deadline - Date.now();
      const headers = h2Headers(path, channel, metadata, left);
      await relayGrpc(call, { upstream: channel.request(headers), body, deadline, rewrite });
    } catch (err) {
      answerUnexpected(call, err);
    } finally {
      deps.inFlight.delete(ticket);
    }
  };
}

/** A call the listener could not route: nothing is opened for it (as src/proxy/pipeline.ts step 1). */
function refuseUnrouted(req: Http2ServerRequest, res: Http2ServerResponse): void {
  const authority = String(req.headers[':authority'] ?? '').slice(0, 100);
  const failure = new GatewayError(
    'AGENT_NOT_FOUND',
    `no agent is routed for ${JSON.stringify(authority)} on this port`,
  );
  req.resume(); // the request message is not needed
  sendGrpcFailure(res, grpcFailureOf(failure));
}

/** gRPC is POST with `application/grpc[+proto|;…]` (gRPC over HTTP/2, "Requests"). */
function checkHead(req: Http2ServerRequest): GatewayError | undefined {
  const type = req.headers['content-type'] ?? '';
  if (req.method !== 'POST' || !/^application\/grpc([+;].*)?$/.test(type)) {
    return new GatewayError('REQUEST_INVALID', 'a gRPC call is a POST with content-type application/grpc');
  }
  return undefined;
}

async function readAndClassify(call: GrpcCall, deps: GrpcPipelineDeps, upstream: Upstream): Promise<Buffer> {
  const { exchange, req } = call;
  const maxBytes = Math.min(deps.limits.grpc.messageBytes, upstream.config.limits.bodyBytes ?? deps.limits.bodyBytes);
  const classifier = new RequestClassifier(asHttp1(req), req.url, deps.inspectBytes || maxBytes + PREFIX_BYTES);
  const onChunk = (chunk: Buffer) => {
    exchange.record.bytesIn += chunk.length;
    classifier.push(chunk);
    exchange.emit('onRequestChunk', chunk);
  };
  let complete = false;
  try {
    const body = await readGrpcBody(req, { maxBytes: maxBytes + PREFIX_BYTES, idleMs: deps.limits.bodyIdle }, onChunk);
    complete = true;
    return body;
  } finally {
    const { facts, failure } = classifier.end(!complete);
    exchange.request = facts;
    exchange.requestFailure = failure;
  }
}

/** The request's metadata as the agent gets it: the same hygiene as HTTP headers, credentials stripped unless forwarded. */
function agentMetadata(call: GrpcCall, trusted: boolean, strip: ReadonlySet<string> | undefined): string[] {
  const { req, exchange } = call;
  const raw: string[] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (!req.rawHeaders[i]!.startsWith(':')) raw.push(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  }
  const forwardedFor = { peerAddress: normalizeAddress(req.socket.remoteAddress), trusted, proto: 'http' as const };
  const out = upstreamRequestHeaders(raw, forwardedFor, exchange.upstream.extraHeaders, strip);
  // Hop-by-hop in HTTP/1.1, but gRPC requires it end to end (gRPC over HTTP/2, "Requests").
  out.push('te', 'trailers');
  return out;
}

function h2Headers(
  path: string,
  channel: GrpcChannel,
  metadata: readonly string[],
  leftMs?: number,
): OutgoingHttpHeaders {
  const url = new URL(channel.origin);
  const headers: OutgoingHttpHeaders = {
    ':method': 'POST',
    ':path': path,
    ':scheme': url.protocol.slice(0, -1),
    ':authority': url.host,
  };
  for (let i = 0; i < metadata.length; i += 2) {
    const name = metadata[i]!.toLowerCase();
    if (name === 'grpc-timeout') continue;
    const prior = headers[name];
    headers[name] = prior === undefined ? metadata[i + 1]! : `${String(prior)}, ${metadata[i + 1]!}`;
  }
  if (leftMs !== undefined) headers['grpc-timeout'] = formatGrpcTimeout(leftMs);
  return headers;
}

/** The answer held and rewritten (relay.ts): an extended card's URLs, ListTasks under task ownership. */
function answerRewrite(
  call: GrpcCall,
  deps: GrpcPipelineDeps,
  upstream: Upstream,
  admission: Admission,
): HeldRewrite | undefined {
  // The AgentCard message's version is its rpc's package (methods.ts), whatever `a2a-version` says.
  const version = grpcMethod(call.req.url)?.version;
  if (isExtendedCardRequest(call.exchange.request) && version) {
    return grpcExtendedCardRewrite(upstream, version, call.req.headers[':authority'], deps.cards);
  }
  const filter = admission.answerFilter;
  return filter && { message: filter('grpc'), maxBytes: deps.limits.grpc.messageBytes };
}

/** A held answer must be readable: the agent is not offered compression (`grpc-accept-encoding`). */
function heldStrip(strip: ReadonlySet<string> | undefined, rewrite: HeldRewrite | undefined) {
  return rewrite ? new Set([...(strip ?? []), 'grpc-accept-encoding']) : strip;
}

function deadlineOf(req: Http2ServerRequest, startedAt: number): number | undefined {
  const ms = parseGrpcTimeout(req.headers['grpc-timeout']);
  return ms === undefined ? undefined : startedAt + ms;
}

/** Anything thrown before the relay took over: answered as a gRPC status whenever the stream is still there. */
function answerUnexpected(call: GrpcCall, err: unknown): void {
  const { exchange, res } = call;
  const failure = grpcFailureOf(err, call.req.url);
  const gone = res.stream.destroyed || res.stream.closed;
  if (err instanceof Error) exchange.fail(gone ? 'client-gone' : 'gateway-error', err);
  const trailers = gone ? undefined : sendGrpcFailure(res, failure);
  if (trailers) exchange.responseTrailers = trailers;
  exchange.finish();
}
