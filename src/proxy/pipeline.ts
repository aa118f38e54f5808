/**
 * The request pipeline for `/agents/{name}/…`, in the order a request travels:
 *   1. find the agent (unknown → 404 in the caller's protocol)
 *   2. open the exchange record
 *   3. agent card? → answer from the card cache, rewritten
 *   4. read the start of the body (the whole of a normal A2A request) and sniff its protocol;
 *      observers see the upstream headers last (tracing adds `traceparent`)
 *   5. a blocking SendMessage to an agent with `timeoutRescue` → the timeout rescue (rescue/)
 *   6. else forward, relaying the response as it arrives (extended cards rewritten)
 *   7. the exchange finishes when the response body ends, aborts or errors (forward.ts)
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';
import type { Upstream } from '../transport/upstream.js';
import { upstreamRequestHeaders } from '../transport/headers.js';
import { GatewayError, upstreamFailure } from '../transport/errors.js';
import type { CardCache } from '../cards/cache.js';
import { renderCard, sendCard } from '../cards/serve.js';
import { Exchange, type ExchangeObserver } from './exchange.js';
import { RequestClassification } from './classify.js';
import { readRequestBody } from './request-body.js';
import { REST_CONTEXT, requestSniff, sendGatewayError, sniffRequest } from './error-response.js';
import { forward } from './forward.js';
import { extendedCardRewrite, isExtendedCardRequest } from './extended-card.js';
import { publicBaseUrl, normalizeAddress, type PeerTrust } from './public-url.js';
import { parseBlockingSend } from '../rescue/wire.js';
import { runRescue } from '../rescue/rescue.js';
import { resolveStrategy } from '../rescue/policy.js';
import { clientTimeoutMs, TIMEOUT_HEADER } from '../rescue/deadline.js';

/** Bytes of a request body read before forwarding; larger bodies stream past it. */
export const REQUEST_PREFIX_BYTES = 64 * 1024;

const DEFAULT_CARD_PATH = '/.well-known/agent-card.json';
const CARD_PATHS = new Set([DEFAULT_CARD_PATH, '/.well-known/agent.json']);

export interface PipelineDeps {
  readonly upstreams: ReadonlyMap<string, Upstream>;
  readonly cards: CardCache;
  readonly trust: PeerTrust;
  readonly publicUrl: string | undefined;
  readonly observers: readonly ExchangeObserver[];
  /** Exchanges in flight, for graceful shutdown. */
  readonly inFlight: Set<Exchange>;
  /** Most body bytes classification and inspection read per exchange; 0 turns both off. */
  readonly inspectBytes: number;
}

export function createAgentPipeline(deps: PipelineDeps) {
  const { upstreams, cards, trust, observers, inFlight } = deps;

  return async function handleAgentRequest(
    req: IncomingMessage,
    res: ServerResponse,
    agent: string,
    rest: string,
  ): Promise<void> {
    // 1. Which agent.
    const upstream = upstreams.get(agent);
    if (!upstream) return answerUnknownAgent(req, res, agent, [...upstreams.keys()]);

    // 2. The exchange record opens.
    const exchange = new Exchange(req, res, upstream, upstream.basePath + rest, observers);
    if (deps.inspectBytes > 0) exchange.classification = new RequestClassification(req, rest, deps.inspectBytes);
    inFlight.add(exchange);
    try {
      const trusted = trust.isTrusted(req);
      // Only cards need it: computed on demand, off the common path.
      const publicAgentUrl = () => `${publicBaseUrl(req, deps.publicUrl, trusted)}/agents/${encodeURIComponent(agent)}`;
      const method = (req.method ?? 'GET') as Dispatcher.HttpMethod;
      const q = rest.indexOf('?');
      const bare = q === -1 ? rest : rest.slice(0, q);

      // 3. Agent card: served from the cache with URLs pointing at the gateway.
      if ((method === 'GET' || method === 'HEAD') && CARD_PATHS.has(bare)) {
        const cardPath = upstream.config.cardPath === DEFAULT_CARD_PATH ? bare : upstream.config.cardPath;
        return await serveCard(exchange, cards, cardPath, publicAgentUrl());
      }

      // 4. The body's start, and what protocol the caller speaks.
      const classification = exchange.classification;
      const body = await readRequestBody(req, REQUEST_PREFIX_BYTES, (chunk) => {
        exchange.record.bytesIn += chunk.length;
        classification?.push(chunk);
        for (const o of observers) o.onRequestChunk?.(exchange, chunk);
      });
      // A whole body is classified now; a streamed one when its response starts (inspector).
      const facts = body.complete ? classification?.end() : undefined;
      const sniff = facts ? requestSniff(facts) : sniffRequest(method, req.headers, body.prefix, body.complete);

      const headers = upstreamRequestHeaders(
        req.rawHeaders,
        {
          peerAddress: normalizeAddress(req.socket.remoteAddress),
          trusted,
          proto: 'encrypted' in req.socket ? 'https' : 'http',
        },
        upstream.extraHeaders,
      );
      for (const o of observers) o.onForward?.(exchange, headers);

      // 5. Timeout rescue for blocking sends.
      const policy = upstream.config.timeoutRescue;
      const maybeBlockingSend = facts ? facts.operation === 'SendMessage' && facts.blocking === true : body.complete;
      const send =
        policy.enabled && maybeBlockingSend
          ? parseBlockingSend(method, exchange.upstreamPath, body.prefix, facts?.version ?? sniff.version)
          : undefined;
      if (send) {
        const card = await cards
          .get(upstream, upstream.config.cardPath, { 'a2a-version': '1.0' })
          .catch(() => undefined);
        const timeout = clientTimeoutMs(req.headers[TIMEOUT_HEADER], policy.clientTimeout);
        return await runRescue({
          exchange,
          send,
          headers,
          policy,
          strategy: resolveStrategy(policy.strategy, card?.card),
          answerBy: exchange.record.startedAt + timeout - policy.margin,
          errorContext: sniff,
        });
      }

      // 6. Forward.
      const extended = isExtendedCardRequest(method, rest, sniff);
      await forward(exchange, {
        method,
        headers,
        body: body.forward,
        errorContext: sniff,
        keepaliveMs: upstream.config.sse.keepalive,
        rewriteFor: extended
          ? (status) =>
              status === 200 ? extendedCardRewrite(sniff.binding, upstream.config.url, publicAgentUrl()) : undefined
          : undefined,
      });
    } catch (err) {
      // Reading the client's body failed (it went away) or something unexpected happened:
      // answer if we still can, and never let it escape.
      const failure =
        err instanceof GatewayError
          ? err
          : new GatewayError('INTERNAL', 'the gateway could not process the request', {}, { cause: err });
      if (!res.headersSent && !req.destroyed) {
        exchange.fail('gateway-error', failure);
        sendGatewayError(res, failure, REST_CONTEXT);
      } else {
        exchange.fail('client-gone', failure);
      }
      exchange.finish();
    } finally {
      inFlight.delete(exchange);
    }
  };
}

async function serveCard(
  exchange: Exchange,
  cards: CardCache,
  cardPath: string,
  publicAgentUrl: string,
): Promise<void> {
  const { req, res, upstream } = exchange;
  try {
    const cached = await cards.get(upstream, cardPath, req.headers);
    const served = renderCard(cached, upstream.config.url, publicAgentUrl);
    exchange.record.bytesOut = served.body.length;
    sendCard(req, res, cached, served);
  } catch (err) {
    const failure = upstreamFailure(err, upstream.name);
    exchange.fail('upstream-error', failure);
    sendGatewayError(res, failure, REST_CONTEXT);
  }
  exchange.finish();
}

/** 404 for an agent that is not configured, as a JSON-RPC envelope with the request's id when
 * the caller speaks JSON-RPC (so the SDK client surfaces it), else as an A2A REST error. */
async function answerUnknownAgent(
  req: IncomingMessage,
  res: ServerResponse,
  agent: string,
  known: string[],
): Promise<void> {
  let sniff = { ...REST_CONTEXT };
  try {
    const body = await readRequestBody(req, REQUEST_PREFIX_BYTES, () => {});
    sniff = sniffRequest(req.method ?? 'GET', req.headers, body.prefix, body.complete);
    if (!body.complete) req.resume(); // drain the rest; we will not forward it
  } catch {
    return; // the client went away
  }
  const hint =
    agent === '.well-known'
      ? 'A card was requested one level above an agent: give clients the agent URL with a trailing slash, e.g. /agents/{name}/'
      : `no agent named "${agent}" is configured`;
  sendGatewayError(
    res,
    new GatewayError('AGENT_NOT_FOUND', `${hint}. Agents: ${known.map((k) => `/agents/${k}/`).join(', ')}`, { agent }),
    sniff,
  );
}
