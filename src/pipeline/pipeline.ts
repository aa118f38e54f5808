/**
 * The one request pipeline, for every binding (docs/ARCHITECTURE.md, "One pipeline, two
 * bindings"), in the order a call travels:
 *   1. find the agent (none → refused in the caller's protocol, nothing opened)
 *   2. the target as the agent gets it and what its head refuses; open the exchange record
 *   3. read the body (its start, or the whole gRPC message) and classify the call once: every
 *      later stage reads these facts (classify.ts)
 *      3a. a tenant the agent's `tenants` does not list → refused (access/tenants.ts)
 *      3b. access control: who calls, how often, may they, whose task, a safe webhook (access/gate.ts)
 *      3c. the agent's replica: the one a task or conversation is pinned to, else the picker's (fleet/placement.ts);
 *          a unary call past its caller's share of the agent's calls → refused (transport/client-shares.ts)
 *      3d. version translation: a call in the other version than the agent's `translate` names is
 *          translated both ways by the binding's relay, its resume's continuation, rescue and
 *          replay (translate/)
 *   4. an answer the gateway gives itself (the HTTP binding's agent card, from the card cache)
 *      4b. stream resume: a stream call with `Last-Event-ID` to an agent with `resume` is answered
 *          from the replay window (binding.resume), never sent to the agent again (resume/); under
 *          task ownership the task the id names must be the caller's (access/gate.ts checkResumed)
 *   5. what the agent gets (headers or metadata); observers see them last (tracing adds `traceparent`)
 *      5b. idempotent sends: a repeated SendMessage of an agent with `idempotency` gets the first
 *          one's outcome (binding.replay) and never reaches the agent; a first is followed (idempotency/)
 *   6. a blocking SendMessage to an agent with `timeoutRescue` → the timeout rescue (rescue/)
 *   7. else relay to the agent, the answer passed on as it arrives (held and rewritten where asked)
 *   8. the exchange finishes exactly once: the answer ended, the client left or the agent failed
 * What differs between HTTP and gRPC is the `Binding` (binding.ts); the order, the record, the
 * classification and access control are written here once.
 */
import { Exchange, type ObserverSet } from '../exchange/exchange.js';
import type { InFlight } from '../exchange/in-flight.js';
import type { Upstream } from '../transport/upstream.js';
import { clientAddress, type PeerTrust } from '../transport/peer.js';
import { OPEN, type AccessGate } from '../access/gate.js';
import { tenantRefusal } from '../access/tenants.js';
import { rescueDecision } from '../rescue/decision.js';
import type { ClientCall } from '../exchange/call.js';
import { place, placeTask } from '../fleet/placement.js';
import type { Pins } from '../fleet/pins.js';
import type { IdempotentSends } from '../idempotency/step.js';
import { resumeOf } from '../resume/decision.js';
import { translationOf } from '../translate/decision.js';
import { jsonRpcBatchRefused } from '../errors/a2a-error.js';
import { RequestClassifier } from './classify.js';
import type { RequestBody } from './request-body.js';
import type { Binding, Prepared } from './binding.js';
import type { ClientShares } from '../transport/client-shares.js';
import { GatewayError } from '../errors/gateway-error.js';

export interface PipelineDeps {
  readonly upstreams: ReadonlyMap<string, Upstream>;
  readonly trust: PeerTrust;
  readonly observers: ObserverSet;
  /** Exchanges in flight, for graceful shutdown. */
  readonly inFlight: InFlight;
  /** Most body bytes the request decoder reads (inspection's cap); 0: inspection is off. */
  readonly inspectBytes: number;
  readonly access: AccessGate;
  /** Which replica each task and conversation lives on (task affinity, src/fleet/pins.ts). */
  readonly pins: Pins;
  /** Step 5b, for agents with `idempotency.enabled` (src/idempotency/step.ts). */
  readonly idempotency: IdempotentSends;
  /** The agent's REST interface paths from its card (CardRegistry), for the `/{tenant}` segment. */
  readonly restBasePaths?: (agent: string) => readonly string[] | undefined;
}

/** Handles one call: `agent` as the listener routed it, `target` what follows the agent's prefix. */
export type CallHandler<C extends ClientCall> = (
  call: C,
  agent: string | undefined,
  target: string,
  /** Routed by `Host` / `:authority` (src/pipeline/route.ts): `target` is the whole target. */
  byHost?: boolean,
) => Promise<void>;

export function createPipeline<C extends ClientCall, P extends Prepared>(
  binding: Binding<C, P>,
  deps: PipelineDeps,
): CallHandler<C> {
  const { upstreams, trust, observers, inFlight, access, pins } = deps;

  return async function handleCall(call, agent, target, byHost = false) {
    // 1. Which agent.
    const upstream = agent === undefined ? undefined : upstreams.get(agent);
    if (!upstream) return binding.refuseUnrouted(call, agent);

    // 2. The target as the agent gets it, what its head refuses, and the exchange record.
    const trusted = trust.isTrusted(call.remoteAddress);
    const head = binding.head(call, upstream, target, trusted);
    const exchange = new Exchange(call, upstream, head.upstreamPath, observers, head.recordPath);
    const ticket = inFlight.add(exchange);
    try {
      if (head.refusal && head.refuseUnread) {
        call.body.resume(); // refused on its head: the body is neither waited for nor held
        throw head.refusal;
      }
      // 3. The body, and the call's one classification; a refusal after it, in the caller's protocol.
      const restBasePaths = deps.restBasePaths?.(upstream.name);
      const body = await readAndClassify(binding, exchange, call, head.path, deps.inspectBytes, restBasePaths);
      if (head.refusal) throw head.refusal;
      // A JSON-RPC batch is never forwarded, whatever the access rules and inspection (one property read).
      if (exchange.request?.jsonrpcBatch === true) throw jsonRpcBatchRefused();
      const tenant = tenantRefusal(upstream.name, upstream.config.tenants, exchange.request);
      if (tenant) throw tenant;
      // 3b. Access control: who calls, how often, may they, whose task, a safe webhook.
      const admission = access.passes(exchange) ? OPEN : await access.admit(exchange, clientAddress(call, trusted));

      // 3c. The agent's replica: task affinity, else a new conversation's pick.
      const placed = place(exchange, pins);
      const replica = placed instanceof Promise ? await placed : placed;
      exchange.replica = replica;
      if (upstream.config.replicated) exchange.record.replica = replica.url;
      replica.health.outstanding++; // until the exchange finishes (src/fleet/observer.ts)
      // The caller's share of the agent's unary calls, until the exchange finishes (off: one read).
      if (upstream.shares && !longLived(call, exchange)) {
        takeShare(exchange, upstream.shares, admission.principal?.id ?? clientAddress(call, trusted));
      }
      // 3d. Version translation (off: one property read).
      const translation = translationOf(exchange.request, upstream.config.translate?.agentVersion);
      if (translation) exchange.translate(translation);

      // The client left while its call was read and admitted (an HTTP/2 stream reset, a closed
      // connection): nothing is forwarded or answered for it (HTTP/2 rapid reset, CVE-2023-44487).
      if (call.closed) throw clientLeft();

      // 4. An answer the gateway gives itself.
      const routed = { call, exchange, path: head.path, byHost, trusted, admission, replica };
      const itself = binding.answerItself?.(routed);
      if (itself) return await itself;
      // 4b. Stream resume: a reconnect with Last-Event-ID, answered from the window (off: one boolean).
      if (upstream.config.resume.enabled && binding.resume) {
        const resume = resumeOf(upstream.name, exchange.request, call.headers['last-event-id']);
        const replicaOf = (taskId: string) => placeTask(exchange.upstream, pins, taskId);
        if (resume?.kind === 'window') await access.checkResumed(exchange, admission, resume.taskId);
        if (resume) return await binding.resume(routed, resume, body, replicaOf);
      }

      // 5. What the agent gets; observers may add to it.
      const prepared = binding.prepare(routed);
      exchange.emit('onForward', prepared.headers);

      // 5b. Idempotent sends: a duplicate is answered with the first's outcome (off: one boolean).
      if (upstream.config.idempotency.enabled && binding.replay) {
        const outcome = await deps.idempotency.check(exchange, clientAddress(call, trusted), body);
        if (outcome) return await binding.replay(routed, prepared, body, outcome);
      }

      // 6. Timeout rescue for blocking sends.
      const send = rescueDecision(exchange.request, upstream.config.timeoutRescue);
      if (send && (await binding.rescue(routed, prepared, body, send))) return;

      // 7. Relay.
      await binding.relay(routed, prepared, body);
    } catch (err) {
      // 8. Anything thrown before the relay took over: answered whenever the call is still there.
      binding.answerUnexpected(exchange, call, err);
    } finally {
      inFlight.delete(ticket);
    }
  };
}

/**
 * A stream (SendStreamingMessage, SubscribeToTask, anything asking for `text/event-stream`):
 * it uses the agent's `streams` pool, which `streamConnections` sizes for many long-lived calls,
 * so it is not counted against the caller's share of the unary calls (the HTTP binding's pool choice).
 */
function longLived(call: ClientCall, exchange: Exchange): boolean {
  return exchange.request?.streaming === true || (call.headers.accept?.includes('text/event-stream') ?? false);
}

/** Counts the call in its caller's share, or refuses it before anything is sent (429). */
function takeShare(exchange: Exchange, shares: ClientShares, caller: string): void {
  if (shares.take(caller)) {
    exchange.shareKey = caller;
    return;
  }
  const agent = exchange.upstream.name;
  throw new GatewayError(
    'CLIENT_SHARE_EXCEEDED',
    `this caller already has ${shares.limit} calls in flight to agent "${agent}" (its share); retry when one ends`,
    { agent },
    { headers: { 'retry-after': '1' } },
  );
}

/** Thrown for a call whose client left before it was forwarded: answered as `client-gone`. */
export function clientLeft(): Error {
  return new Error('the client left before its call was forwarded');
}

/** Reads the body (observers see every chunk) and classifies the call from it. */
async function readAndClassify<C extends ClientCall, P extends Prepared>(
  binding: Binding<C, P>,
  exchange: Exchange,
  call: C,
  path: string,
  inspectBytes: number,
  restBasePaths: readonly string[] | undefined,
): Promise<RequestBody> {
  const readAhead = inspectBytes || binding.readAhead(exchange.upstream);
  const classifier = new RequestClassifier(call, path, readAhead, restBasePaths);
  const classify = (cut: boolean) => {
    const { facts, failure } = classifier.end(cut);
    exchange.request = facts;
    exchange.requestFailure = failure;
  };
  const onChunk = (chunk: Buffer) => {
    exchange.record.bytesIn += chunk.length;
    classifier.push(chunk); // a no-op once classified: the rest of a large body streams past
    exchange.emit('onRequestChunk', chunk);
  };
  try {
    const body = await binding.readBody(call, exchange.upstream, onChunk);
    classify(!body.complete);
    return body;
  } catch (err) {
    classify(true); // what was read, for the refusal's protocol
    throw err;
  }
}
