/**
 * The HTTP binding of the one pipeline (src/pipeline/binding.ts): JSON-RPC and HTTP+JSON calls
 * on node:http, relayed to the agent with undici. What is only HTTP's lives here: the target
 * normalised below the agent's base path (target.ts), the head checks (request-checks.ts), the
 * body's start read ahead and the rest streamed (src/pipeline/request-body.ts), the agent card
 * served from the card cache (step 4), header hygiene and X-Forwarded-* (step 5), the rescue's
 * HTTP calls (step 6), the undici relay with SSE keepalives and held rewrites (forward.ts, step
 * 7), and errors as JSON-RPC envelopes or A2A REST errors (src/errors/json-answer.ts).
 */
import type { Dispatcher } from 'undici';
import type { Upstream } from '../../transport/upstream.js';
import { upstreamRequestHeaders, withBodyLength } from '../../transport/headers.js';
import { normalizeAddress, publicBaseUrl, publicHostUrl } from '../../transport/peer.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { errorContextOf, sendGatewayError, type ErrorContext } from '../../errors/json-answer.js';
import { A2AError, sendA2AError } from '../../errors/a2a-error.js';
import type { Exchange } from '../../exchange/exchange.js';
import type { CardCache } from '../../cards/cache.js';
import type { CardSecurity } from '../../cards/security.js';
import { gatewayGrpcAuthority, type GrpcPorts } from '../../cards/grpc-address.js';
import type { RequestFacts } from '../../a2a/request.js';
import type { Binding, HeadCheck, Prepared, RoutedCall } from '../../pipeline/binding.js';
import { readRequestBody, REQUEST_PREFIX_BYTES, type RequestBody } from '../../pipeline/request-body.js';
import type { ClientLimits } from '../../transport/client-limits.js';
import type { TaskTracker } from '../../tasks/tracker.js';
import { normaliseTarget, redactQuery } from './target.js';
import { codingRefusal, refusalOf } from './request-checks.js';
import { forward, type ForwardRequest } from './forward.js';
import { extendedCardRewrite } from './extended-card.js';
import { answerUnknownAgent } from './unrouted.js';
import type { CardSigner } from '../../cards/signer.js';
import { serveCardFromCache, type CardAddress } from './card.js';
import { rescueHttpCall } from './rescue-call.js';
import { replayHttpCall } from './replay.js';
import type { HttpCall } from './http-call.js';
import { Readable } from 'node:stream';
import type { Replica } from '../../transport/replica.js';
import { continuationCall } from '../../a2a/resume-wire.js';
import { resumeHttpCall } from './resume.js';
import type { ReplayWindows } from '../../resume/window.js';
import { ResumableStream } from '../../resume/stream-ids.js';
import type { Translation } from '../../translate/decision.js';
import type { BodyRewrite } from '../../exchange/answer-rewrite.js';
import {
  answerRewrite,
  continuationInAgentVersion,
  eventTranslator,
  inAgentVersion,
  translateCall,
} from './translate.js';
import { jsonRpcWithPageToken, restTargetWithPageToken } from '../../access/page-token-request.js';

export interface HttpBindingDeps {
  readonly cards: CardCache;
  readonly publicUrl: string | undefined;
  readonly limits: ClientLimits;
  /** How query strings appear in records and logs. */
  readonly queryStrings: 'redact' | 'keep';
  /** The card as this gateway's callers must authenticate (securitySchemes), when `auth` is on. */
  readonly cardSecurity?: CardSecurity;
  /** The gateway's signature on the cards it serves (`cards.signing`). */
  readonly cardSigner?: CardSigner;
  /** The task tracker, for the timeout rescue's gateway-only sightings (src/rescue/rescue.ts). */
  readonly tracker: TaskTracker;
  /** Where the gateway serves gRPC (the cards' GRPC interfaces point there: src/cards/grpc-address.ts). */
  readonly grpcPorts: GrpcPorts;
  /** Stream resume's replay windows (src/resume/), made with the state store (src/state/build.ts). */
  readonly windows: ReplayWindows;
}

export interface HttpPrepared extends Prepared {
  readonly errorContext: ErrorContext;
}

const DEFAULT_CARD_PATH = '/.well-known/agent-card.json';
const CARD_PATHS = new Set([DEFAULT_CARD_PATH, '/.well-known/agent.json']);

export function httpBinding(deps: HttpBindingDeps): Binding<HttpCall, HttpPrepared> {
  return {
    refuseUnrouted: (call, agent) => answerUnknownAgent(call, agent ?? '', deps.limits.bodyIdle),
    head: (call, upstream, target, trusted) => checkHead(call, upstream, target, trusted, deps),
    readAhead: () => REQUEST_PREFIX_BYTES,
    readBody: (call, upstream, onChunk) =>
      readRequestBody(call.req, REQUEST_PREFIX_BYTES, onChunk, {
        maxBytes: upstream.config.limits.bodyBytes ?? deps.limits.bodyBytes,
        idleMs: deps.limits.bodyIdle,
      }),
    answerItself: (routed) => serveCard(routed, deps),
    prepare: (routed) => ({
      headers: agentHeaders(routed),
      errorContext: errorContextOfCall(routed.exchange, routed.call),
    }),
    replay: (routed, prepared, body, outcome) => replayHttpCall(routed, prepared, body, outcome, deps.tracker),
    resume: (routed, resume, body, replicaOf) =>
      resumeHttpCall(routed, resume, deps.windows, (taskId) =>
        continueStream(routed, body, taskId, replicaOf, deps.windows),
      ),
    rescue: (routed, prepared, body, send) => rescueHttpCall(routed, prepared, body, send, deps),
    relay: (routed, prepared, body) => relay(routed, prepared, body, deps),
    answerUnexpected: (exchange, call, err) => answerUnexpected(exchange, call, err),
  };
}

/** The error context of a call: the binding, version and JSON-RPC id its errors are answered in. */
function errorContextOfCall(exchange: Exchange, call: HttpCall): ErrorContext {
  return errorContextOf(exchange.request, call.req.headers);
}

/** The normalised target, and the refusal (if any) to answer once the body's start is read. */
function checkHead(
  call: HttpCall,
  upstream: Upstream,
  rest: string,
  trusted: boolean,
  deps: HttpBindingDeps,
): HeadCheck {
  const target = normaliseTarget(rest);
  const path = target.ok ? target.target : rest;
  const refusal = target.ok
    ? (refusalOf(call.req, trusted, deps.limits.headerCount) ?? codingRefusal(call.req))
    : new GatewayError('REQUEST_INVALID', `refused: ${target.why}`, { agent: upstream.name });
  const recordPath = deps.queryStrings === 'keep' ? path : redactQuery(path);
  return { path, upstreamPath: upstream.basePath + path, recordPath, refusal, refuseUnread: false };
}

/** Where the agent is at the gateway. Only cards need it: computed on demand, off the common path. */
function cardAddress(routed: RoutedCall<HttpCall>, deps: HttpBindingDeps): CardAddress {
  const { call, exchange, byHost, trusted } = routed;
  const { upstream } = exchange;
  // Routed by host, the agent is the root of that host; else it is under the gateway's /agents/{name}.
  const publicUrl = byHost
    ? publicHostUrl(call.req, deps.publicUrl, trusted)
    : `${publicBaseUrl(call.req, deps.publicUrl, trusted)}/agents/${encodeURIComponent(upstream.name)}`;
  const host = new URL(publicUrl).hostname;
  return { publicUrl, grpc: gatewayGrpcAuthority(upstream.name, upstream.config.hosts, host, deps.grpcPorts) };
}

/** Step 4: `GET`/`HEAD` of the agent card, answered from the cache with URLs pointing at the gateway. */
function serveCard(routed: RoutedCall<HttpCall>, deps: HttpBindingDeps): Promise<void> | undefined {
  const { call, exchange, path } = routed;
  const q = path.indexOf('?');
  const bare = q === -1 ? path : path.slice(0, q);
  if ((call.method !== 'GET' && call.method !== 'HEAD') || !CARD_PATHS.has(bare)) return undefined;
  const { upstream } = exchange;
  const cardPath = upstream.config.cardPath === DEFAULT_CARD_PATH ? bare : upstream.config.cardPath;
  const at = cardAddress(routed, deps);
  const errorContext = errorContextOfCall(exchange, call);
  // `translate` on: the caller's version decides the card's shape (1.0 callers send A2A-Version, §3.6.1).
  const shape = upstream.config.translate ? (exchange.request?.version ?? '0.3') : undefined;
  const { cardSecurity, cardSigner } = deps;
  return serveCardFromCache(exchange, call, deps.cards, cardPath, at, errorContext, cardSecurity, cardSigner, shape);
}

/** Hop-by-hop headers out, X-Forwarded-* in, the caller's credentials out unless forwarded, the agent's own headers set. */
function agentHeaders({ call, exchange, trusted, admission }: RoutedCall<HttpCall>): string[] {
  const forwardedFor = {
    peerAddress: normalizeAddress(call.remoteAddress),
    trusted,
    proto: call.encrypted ? ('https' as const) : ('http' as const),
  };
  return upstreamRequestHeaders(
    call.req.rawHeaders,
    forwardedFor,
    exchange.upstream.extraHeaders,
    admission.stripHeaders,
  );
}

function relay(
  routed: RoutedCall<HttpCall>,
  prepared: HttpPrepared,
  body: RequestBody,
  deps: HttpBindingDeps,
): Promise<void> {
  const { call, exchange } = routed;
  if (exchange.translation) return relayTranslated(routed, prepared, body, exchange.translation, deps);
  const sent = withAgentPageToken(routed, prepared.headers, body);
  return forward(exchange, call.res, {
    method: call.method as Dispatcher.HttpMethod,
    headers: sent.headers,
    body: sent.body,
    path: sent.path,
    errorContext: prepared.errorContext,
    keepaliveMs: exchange.upstream.config.sse.keepalive,
    replica: routed.replica,
    stream: wantsStream(call, exchange.request),
    rewriteFor: responseRewrite(routed, prepared.errorContext, deps),
    resume: exchange.upstream.config.resume.enabled ? resumableStream(exchange, deps.windows) : undefined,
  });
}

/**
 * ListTasks under task ownership: the agent's page token in place of the caller's sealed one
 * (src/access/gate.ts opened it; page-token-request.ts), every other byte as the caller sent it.
 */
function withAgentPageToken(
  routed: RoutedCall<HttpCall>,
  headers: string[],
  body: RequestBody,
): { headers: string[]; body: RequestBody['forward']; path?: string } {
  const token = routed.admission.agentPageToken;
  const { exchange } = routed;
  if (token === undefined) return { headers, body: body.forward };
  if (exchange.request?.binding === 'rest') {
    return { headers, body: body.forward, path: restTargetWithPageToken(exchange.upstreamPath, token) };
  }
  // The gate admitted only a body read whole that parsed: this cannot fail.
  const swapped = jsonRpcWithPageToken(body.prefix, token);
  if (!swapped) throw new GatewayError('INTERNAL', 'the ListTasks page token could not be replaced');
  const bytes = Buffer.from(swapped.buffer, swapped.byteOffset, swapped.byteLength);
  return { headers: withBodyLength(headers, bytes.length), body: bytes };
}

/** Step 7 of a translated call (step 3d): the call and its answer in each side's version (translate.ts). */
async function relayTranslated(
  routed: RoutedCall<HttpCall>,
  prepared: HttpPrepared,
  body: RequestBody,
  t: Translation,
  deps: HttpBindingDeps,
): Promise<void> {
  const { call, exchange } = routed;
  const made = await translateCall(exchange, t, call.method, routed.path, prepared.headers, body);
  const card =
    t.operation === 'GetExtendedAgentCard' ? responseRewrite(routed, prepared.errorContext, deps) : undefined;
  return forward(exchange, call.res, {
    method: call.method as Dispatcher.HttpMethod,
    headers: made.headers,
    body: made.body,
    path: made.path,
    errorContext: prepared.errorContext,
    keepaliveMs: exchange.upstream.config.sse.keepalive,
    replica: routed.replica,
    stream: wantsStream(call, exchange.request),
    rewriteFor: (status, headers) => thenRewrite(answerRewrite(exchange, t, status), card?.(status, headers)),
    translateEvents: eventTranslator(t),
    // Ids go on the translated events; the window keeps them as the caller got them.
    resume: exchange.upstream.config.resume.enabled ? resumableStream(exchange, deps.windows) : undefined,
  });
}

/** The translated answer, then (an extended card) its URLs and security rewritten for the caller. */
function thenRewrite(first: BodyRewrite, second: BodyRewrite | undefined): BodyRewrite {
  if (!second) return first;
  return {
    maxBytes: first.maxBytes,
    // Read only when the answer is past maxBytes (answerRewrite makes its refusal then).
    get oversize() {
      return first.oversize;
    },
    async apply(body, headers) {
      const translated = await first.apply(body, headers);
      return 'refusal' in translated ? translated : second.apply(translated.body, translated.headers);
    },
  };
}

/**
 * A resumed stream nobody reads any more goes on with a SubscribeToTask to the task's replica,
 * in the SSE answer the replay started: the client's own SubscribeToTask, or one made for a
 * re-sent SendStreamingMessage (src/a2a/resume-wire.ts). Its events get ids of a new stream.
 * False: it cannot be continued (the replay ends with an error event).
 */
async function continueStream(
  routed: RoutedCall<HttpCall>,
  body: RequestBody,
  taskId: string,
  replicaOf: (taskId: string) => Promise<Replica>,
  windows: ReplayWindows,
): Promise<boolean> {
  const { call, exchange } = routed;
  const facts = exchange.request!;
  const t = exchange.translation;
  const own = facts.operation === 'SubscribeToTask' && !(body.forward instanceof Readable) && !t;
  const next = own ? { path: exchange.upstreamPath, body: body.forward as Buffer | null } : undefined;
  const made =
    next ??
    (t ? continuationInAgentVersion(routed, t, taskId) : continuationCall(facts, exchange.upstreamPath, taskId));
  if (!made) return false;
  const length = made.body?.length ?? 0;
  const headers = t ? inAgentVersion(agentHeaders(routed), t, length) : withBodyLength(agentHeaders(routed), length);
  exchange.emit('onForward', headers);
  await forward(exchange, call.res, {
    method: 'POST',
    headers,
    body: made.body,
    errorContext: errorContextOfCall(exchange, call),
    keepaliveMs: exchange.upstream.config.sse.keepalive,
    replica: await replicaOf(taskId),
    stream: true,
    continuing: true,
    resume: resumableStream(exchange, windows),
    path: made.path,
    translateEvents: t && eventTranslator({ ...t, operation: 'SubscribeToTask' }),
  });
  return true;
}

/** A SendStreamingMessage or SubscribeToTask of an agent with `resume`: its events get ids and a window. */
function resumableStream(exchange: Exchange, windows: ReplayWindows): ForwardRequest['resume'] {
  const facts = exchange.request;
  const op = facts?.operation;
  if (op !== 'SendStreamingMessage' && op !== 'SubscribeToTask') return undefined;
  if (facts!.binding === 'grpc' || facts!.binding === 'unknown') return undefined;
  const { name, config } = exchange.upstream;
  const { window, grace } = config.resume;
  const limits = { events: window.events, bytes: window.bytes, ttlMs: window.ttl };
  return { stream: new ResumableStream(name, facts!.binding, windows, limits), graceMs: grace };
}

/** Long-lived: a streaming operation, or anything that asks for an event stream. */
function wantsStream(call: HttpCall, facts: RequestFacts | undefined): boolean {
  return facts?.streaming === true || (call.headers.accept?.includes('text/event-stream') ?? false);
}

/** The answer rewritten on its way: extended cards (their URLs), ListTasks under task ownership. */
function responseRewrite(
  routed: RoutedCall<HttpCall>,
  errorContext: ErrorContext,
  deps: HttpBindingDeps,
): ForwardRequest['rewriteFor'] {
  const { exchange, admission } = routed;
  // The extended card (routes and methods: src/a2a/rest-routes.ts, operations.ts).
  if (exchange.request?.operation === 'GetExtendedAgentCard') {
    const version = exchange.request?.version ?? errorContext.version;
    const secured = deps.cardSecurity && { schemes: deps.cardSecurity, version };
    const agentUrl = routed.replica.url;
    return (status) =>
      status === 200
        ? extendedCardRewrite(errorContext.binding, agentUrl, cardAddress(routed, deps), secured, deps.cardSigner)
        : undefined;
  }
  const filter = admission.answerFilter;
  return filter && ((status) => (status >= 200 && status < 300 ? filter(errorContext.binding) : undefined));
}

/**
 * The last resort: reading the client's body failed (it went away) or something unexpected
 * happened. Answer in the caller's protocol whenever the response has not started, and never
 * let it escape.
 */
function answerUnexpected(exchange: Exchange, call: HttpCall, err: unknown): void {
  const { res } = call;
  // A body that failed a limit while its start was read is still classified by now.
  const errorContext = errorContextOfCall(exchange, call);
  const failure =
    err instanceof GatewayError
      ? err
      : new GatewayError('INTERNAL', 'the gateway could not process the request', {}, { cause: err });
  // A refusal while the client is still sending its body ends the connection: the rest is not read.
  if (!call.req.complete && !res.headersSent) res.setHeader('connection', 'close');
  if (err instanceof A2AError && !res.headersSent && !res.destroyed) {
    // The protocol's own error (TaskNotFound, InvalidParams), in the shape of the request's version.
    exchange.fail('gateway-error', err);
    const version = exchange.request?.version ?? errorContext.version;
    sendA2AError(res, err, { ...errorContext, version }, exchange.request?.streaming);
  } else if (!res.headersSent && !res.writableEnded && !res.destroyed) {
    exchange.fail('gateway-error', failure);
    sendGatewayError(res, failure, errorContext);
  } else {
    exchange.fail('client-gone', failure);
    if (!res.writableEnded) res.destroy();
  }
  exchange.finish();
}
