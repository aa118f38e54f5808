/**
 * The request pipeline for `/agents/{name}/…` and for an agent's own hosts (routed by `Host`,
 * src/proxy/route.ts: the same steps, the target as is), in the order a request travels
 * (docs/ARCHITECTURE.md, "A request's path"):
 *   1. find the agent (unknown → 404 in the caller's protocol)
 *   2. normalise the target (dot-segments resolved), check method and Host, and open the exchange
 *      record; a refusal is answered after step 3, in the caller's protocol
 *   3. read the start of the body (the whole of a normal A2A request) and classify the request
 *      once: every later stage reads these facts (classify.ts)
 *      3b. access control: who calls, how often, may they, whose task, a safe webhook (access/gate.ts)
 *   4. agent card? → answer from the card cache, rewritten
 *   5. the upstream headers; observers see them last (tracing adds `traceparent`)
 *   6. a blocking SendMessage to an agent with `timeoutRescue` → the timeout rescue (rescue/)
 *   7. else forward, relaying the response as it arrives (extended cards rewritten)
 *   8. the exchange finishes when the response body ends, aborts or errors (forward.ts)
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';
import type { Upstream } from '../transport/upstream.js';
import { upstreamRequestHeaders } from '../transport/headers.js';
import { GatewayError, upstreamFailure } from '../transport/errors.js';
import type { CardCache } from '../cards/cache.js';
import { renderCard, sendCard } from '../cards/serve.js';
import { Exchange, type ObserverSet } from '../exchange/exchange.js';
import type { InFlight } from '../exchange/in-flight.js';
import { RequestClassifier, type Classification } from './classify.js';
import type { RequestFacts } from '../a2a/request.js';
import { readRequestBody, type BodyLimits, type RequestBody } from './request-body.js';
import { normaliseTarget, redactQuery } from './target.js';
import { refusalOf } from './request-checks.js';
import { errorContextOf, REST_CONTEXT, sendGatewayError, type ErrorContext } from './error-response.js';
import { forward, type ForwardRequest } from './forward.js';
import type { CardSecurity } from '../cards/security.js';
import { extendedCardRewrite, isExtendedCardRequest } from './extended-card.js';
import { publicBaseUrl, publicHostUrl, normalizeAddress, clientAddress, type PeerTrust } from './public-url.js';
import { A2AError, sendA2AError } from './a2a-error.js';
import { OPEN, type AccessGate, type Admission } from '../access/gate.js';
import { httpSendOf, type HttpSend } from '../rescue/wire.js';
import { rescueDecision } from '../rescue/decision.js';
import { runRescue } from '../rescue/http.js';
import { resolveStrategy } from '../rescue/policy.js';
import { clientTimeoutMs, TIMEOUT_HEADER } from '../rescue/deadline.js';
import type { ClientLimits } from '../transport/client-limits.js';
import type { TaskTracker } from '../tasks/tracker.js';
import type { GrpcPorts } from '../grpc/ports.js';
import { gatewayGrpcAuthority } from '../grpc/card-address.js';

/** Where the agent is at the gateway: its public URL and its gRPC `host:port` (if it has a gRPC route). */
interface CardAddress {
  readonly publicUrl: string;
  readonly grpc: string | undefined;
}

/** Bytes of a request body read before forwarding; larger bodies stream past it. */
export const REQUEST_PREFIX_BYTES = 64 * 1024;

const DEFAULT_CARD_PATH = '/.well-known/agent-card.json';
const CARD_PATHS = new Set([DEFAULT_CARD_PATH, '/.well-known/agent.json']);

export interface PipelineDeps {
  readonly upstreams: ReadonlyMap<string, Upstream>;
  readonly cards: CardCache;
  readonly trust: PeerTrust;
  readonly publicUrl: string | undefined;
  readonly observers: ObserverSet;
  /** Exchanges in flight, for graceful shutdown. */
  readonly inFlight: InFlight;
  /** Most body bytes the request decoder reads (inspection's cap); 0: inspection is off. */
  readonly inspectBytes: number;
  readonly limits: ClientLimits;
  /** How query strings appear in records and logs. */
  readonly queryStrings: 'redact' | 'keep';
  readonly access: AccessGate;
  /** The card as this gateway's callers must authenticate (securitySchemes), when `auth` is on. */
  readonly cardSecurity?: CardSecurity;
  /** The task tracker, for the timeout rescue's gateway-only sightings (src/rescue/rescue.ts). */
  readonly tracker: TaskTracker;
  /** Where the gateway serves gRPC (the cards' GRPC interfaces point there: src/grpc/card-address.ts). */
  readonly grpcPorts: GrpcPorts;
}

export function createAgentPipeline(deps: PipelineDeps) {
  const { upstreams, cards, trust, observers, inFlight } = deps;

  return async function handleAgentRequest(
    req: IncomingMessage,
    res: ServerResponse,
    agent: string,
    rest: string,
    /** Set when the agent was routed by `Host` (src/proxy/route.ts): `rest` is the whole target. */
    byHost?: boolean,
  ): Promise<void> {
    // 1. Which agent.
    const upstream = upstreams.get(agent);
    if (!upstream) return answerUnknownAgent(req, res, agent, deps.limits.bodyIdle);

    // 2. The target as the agent will get it, what is refused, and the exchange record.
    const trusted = trust.isTrusted(req);
    const { path, refusal } = checkRequest(req, rest, trusted, deps.limits.headerCount, agent);
    const bodyLimits = {
      maxBytes: upstream.config.limits.bodyBytes ?? deps.limits.bodyBytes,
      idleMs: deps.limits.bodyIdle,
    };
    const shown = deps.queryStrings === 'keep' ? path : redactQuery(path);
    const exchange = new Exchange(req, res, upstream, upstream.basePath + path, observers, shown);
    const ticket = inFlight.add(exchange);
    try {
      // Only cards need it: computed on demand, off the common path. Routed by host, the agent
      // is the root of that host; else it is under the gateway's /agents/{name}.
      const publicAgentUrl = () =>
        byHost
          ? publicHostUrl(req, deps.publicUrl, trusted)
          : `${publicBaseUrl(req, deps.publicUrl, trusted)}/agents/${encodeURIComponent(agent)}`;
      const cardAt = (): CardAddress => {
        const publicUrl = publicAgentUrl();
        const host = new URL(publicUrl).hostname;
        return { publicUrl, grpc: gatewayGrpcAuthority(agent, upstream.config.hosts, host, deps.grpcPorts) };
      };
      const method = (req.method ?? 'GET') as Dispatcher.HttpMethod;

      // 3. The body's start, and the request's one classification.
      const body = await readAndClassify(exchange, path, deps.inspectBytes || REQUEST_PREFIX_BYTES, bodyLimits);
      const facts = exchange.request;
      const errorContext = errorContextOf(facts, req.headers['a2a-version']);
      if (refusal) throw refusal;
      const admission = deps.access.passes(exchange)
        ? OPEN
        : await deps.access.admit(exchange, clientAddress(req, trusted));

      // 4. Agent card: served from the cache with URLs pointing at the gateway.
      const q = path.indexOf('?');
      const bare = q === -1 ? path : path.slice(0, q);
      if ((method === 'GET' || method === 'HEAD') && CARD_PATHS.has(bare)) {
        const cardPath = upstream.config.cardPath === DEFAULT_CARD_PATH ? bare : upstream.config.cardPath;
        return await serveCard(exchange, cards, cardPath, cardAt(), errorContext, deps.cardSecurity);
      }

      // 5. The headers the agent gets; observers may add to them.
      const headers = agentHeaders(exchange, trusted, admission.stripHeaders);
      exchange.emit('onForward', headers);

      // 6. Timeout rescue for blocking sends.
      const send = blockingSendToRescue(exchange, body);
      if (send) return await rescue(exchange, send, headers, { cards, tracker: deps.tracker }, errorContext);

      // 7. Forward.
      await forward(exchange, {
        method,
        headers,
        body: body.forward,
        errorContext,
        keepaliveMs: upstream.config.sse.keepalive,
        stream: wantsStream(req, facts),
        rewriteFor: responseRewrite(exchange, deps.cardSecurity, admission, errorContext, cardAt),
      });
    } catch (err) {
      // A body that failed a limit while its start was read is still classified by now.
      answerUnexpected(exchange, err, errorContextOf(exchange.request, req.headers['a2a-version']));
    } finally {
      inFlight.delete(ticket);
    }
  };
}

/** Hop-by-hop headers out, X-Forwarded-* in, the caller's credentials out unless forwarded, the agent's own headers set. */
function agentHeaders(exchange: Exchange, trusted: boolean, strip: ReadonlySet<string> | undefined): string[] {
  const { req, upstream } = exchange;
  const forwardedFor = {
    peerAddress: normalizeAddress(req.socket.remoteAddress),
    trusted,
    proto: 'encrypted' in req.socket ? ('https' as const) : ('http' as const),
  };
  return upstreamRequestHeaders(req.rawHeaders, forwardedFor, upstream.extraHeaders, strip);
}

/** The answer rewritten on its way: extended cards (their URLs), ListTasks under task ownership. */
function responseRewrite(
  exchange: Exchange,
  security: CardSecurity | undefined,
  admission: Admission,
  errorContext: ErrorContext,
  cardAt: () => CardAddress,
): ForwardRequest['rewriteFor'] {
  const { upstream } = exchange;
  if (isExtendedCardRequest(exchange.request)) {
    const version = exchange.request?.version ?? errorContext.version;
    const secured = security && { schemes: security, version };
    return (status) =>
      status === 200 ? extendedCardRewrite(errorContext.binding, upstream.config.url, cardAt(), secured) : undefined;
  }
  const filter = admission.answerFilter;
  return filter && ((status) => (status >= 200 && status < 300 ? filter(errorContext.binding) : undefined));
}

/** The normalised target, and the refusal (if any) to answer once the body's start is read. */
function checkRequest(req: IncomingMessage, rest: string, trusted: boolean, headerCount: number, agent: string) {
  const target = normaliseTarget(rest);
  if (!target.ok)
    return { path: rest, refusal: new GatewayError('REQUEST_INVALID', `refused: ${target.why}`, { agent }) };
  return { path: target.target, refusal: refusalOf(req, trusted, headerCount) };
}

/** Reads the body's start (observers see every chunk) and classifies the request from it. */
async function readAndClassify(
  exchange: Exchange,
  rest: string,
  maxBytes: number,
  limits: BodyLimits,
): Promise<RequestBody> {
  const classifier = new RequestClassifier(exchange.req, rest, maxBytes);
  const classify = (cut: boolean) => {
    const { facts, failure }: Classification = classifier.end(cut);
    exchange.request = facts;
    exchange.requestFailure = failure;
  };
  const onChunk = (chunk: Buffer) => {
    exchange.record.bytesIn += chunk.length;
    classifier.push(chunk); // a no-op once classified: the rest of a large body streams past
    exchange.emit('onRequestChunk', chunk);
  };
  try {
    const body = await readRequestBody(exchange.req, REQUEST_PREFIX_BYTES, onChunk, limits);
    classify(!body.complete);
    return body;
  } catch (err) {
    classify(true); // what was read, for the refusal's protocol
    throw err;
  }
}

/** Long-lived: a streaming operation, or anything that asks for an event stream. */
function wantsStream(req: IncomingMessage, facts: RequestFacts | undefined): boolean {
  return facts?.streaming === true || (req.headers.accept?.includes('text/event-stream') ?? false);
}

/** The blocking send to rescue, if this is one (decided on the facts) and its body was read whole. */
function blockingSendToRescue(exchange: Exchange, body: RequestBody): HttpSend | undefined {
  const send = rescueDecision(exchange.request, exchange.upstream.config.timeoutRescue);
  if (!send || !body.complete) return undefined;
  // Bodies up to the decoder's parse buffer were parsed whole already; a larger one is parsed here.
  const document = exchange.request?.document ?? parseJson(body.prefix);
  return httpSendOf(send, document, exchange.upstreamPath);
}

function parseJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}

async function rescue(
  exchange: Exchange,
  send: HttpSend,
  headers: string[],
  { cards, tracker }: Pick<PipelineDeps, 'cards' | 'tracker'>,
  errorContext: ErrorContext,
): Promise<void> {
  const { upstream, req } = exchange;
  const policy = upstream.config.timeoutRescue;
  const card = await cards.get(upstream, upstream.config.cardPath, { 'a2a-version': '1.0' }).catch(() => undefined);
  const timeout = clientTimeoutMs(req.headers[TIMEOUT_HEADER], policy.clientTimeout);
  await runRescue({
    exchange,
    send,
    headers,
    policy,
    strategy: resolveStrategy(policy.strategy, card?.card),
    answerBy: exchange.record.startedAt + timeout - policy.margin,
    errorContext,
    tracker,
  });
}

/**
 * The last resort: reading the client's body failed (it went away) or something unexpected
 * happened. Answer in the caller's protocol whenever the response has not started, and never
 * let it escape.
 */
function answerUnexpected(exchange: Exchange, err: unknown, errorContext: ErrorContext): void {
  const { res } = exchange;
  const failure =
    err instanceof GatewayError
      ? err
      : new GatewayError('INTERNAL', 'the gateway could not process the request', {}, { cause: err });
  // A refusal while the client is still sending its body ends the connection: the rest is not read.
  if (!exchange.req.complete && !res.headersSent) res.setHeader('connection', 'close');
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

async function serveCard(
  exchange: Exchange,
  cards: CardCache,
  cardPath: string,
  at: CardAddress,
  errorContext: ErrorContext,
  security: CardSecurity | undefined,
): Promise<void> {
  const { req, res, upstream } = exchange;
  try {
    const cached = await cards.get(upstream, cardPath, req.headers);
    const served = renderCard(cached, upstream.config.url, at.publicUrl, security, at.grpc);
    exchange.record.bytesOut = served.length;
    sendCard(req, res, cached, served);
  } catch (err) {
    const failure = upstreamFailure(err, upstream.name);
    exchange.fail('upstream-error', failure);
    sendGatewayError(res, failure, errorContext);
  }
  exchange.finish();
}

/** 404 for an agent that is not configured, as a JSON-RPC envelope with the request's id when
 * the caller speaks JSON-RPC (so the SDK client surfaces it), else as an A2A REST error. Only the
 * body's start is read (for the protocol); a larger body is not drained: the connection closes. */
async function answerUnknownAgent(
  req: IncomingMessage,
  res: ServerResponse,
  agent: string,
  idleMs: number,
): Promise<void> {
  const classifier = new RequestClassifier(req, '/', REQUEST_PREFIX_BYTES);
  let errorContext: ErrorContext;
  let extra: Record<string, string> = {};
  try {
    const limits = { maxBytes: Number.MAX_SAFE_INTEGER, idleMs };
    const body = await readRequestBody(req, REQUEST_PREFIX_BYTES, (chunk) => classifier.push(chunk), limits);
    errorContext = errorContextOf(classifier.end(!body.complete).facts, req.headers['a2a-version']);
    if (!body.complete) extra = { connection: 'close' };
  } catch (err) {
    // A body that went quiet is told so; a client that went away is not answered.
    if (err instanceof GatewayError && !res.destroyed) sendGatewayError(res, err, REST_CONTEXT);
    return;
  }
  // The fleet is not listed: who can reach the port must not learn every agent behind it.
  const hint =
    agent === '.well-known'
      ? 'A card was requested one level above an agent: give clients the agent URL with a trailing slash, e.g. /agents/{name}/'
      : `no agent named "${agent.slice(0, 64)}" is configured`;
  sendGatewayError(res, new GatewayError('AGENT_NOT_FOUND', hint, { agent: agent.slice(0, 64) }), errorContext, extra);
}
