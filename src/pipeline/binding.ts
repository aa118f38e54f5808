/**
 * What a binding gives the one pipeline (pipeline.ts): the steps whose work depends on the wire
 * the call came in on. The HTTP binding (src/bindings/http/binding.ts: JSON-RPC and HTTP+JSON,
 * relayed with undici) and the gRPC binding (src/bindings/grpc/binding.ts: HTTP/2 streams to the
 * agent) each implement it once; the order of the steps and everything between them —
 * the exchange record, classification, access control, observers — is the pipeline's.
 */
import type { Exchange } from '../exchange/exchange.js';
import type { Upstream } from '../transport/upstream.js';
import type { Replica } from '../transport/replica.js';
import type { GatewayError } from '../errors/gateway-error.js';
import type { Admission } from '../access/gate.js';
import type { BlockingSend } from '../a2a/rescue-wire.js';
import type { ClientCall } from '../exchange/call.js';
import type { RequestBody } from './request-body.js';
import type { Outcome } from '../idempotency/store.js';
import type { ResumeRequest } from '../resume/decision.js';

/** Step 2: where the call goes on the agent, and what its head refuses. */
export interface HeadCheck {
  /** The normalised target after the agent's prefix (what routes and the classifier read). */
  readonly path: string;
  /** Path (and query) to request on the agent. */
  readonly upstreamPath: string;
  /** The path as records and logs show it. */
  readonly recordPath: string;
  /** Answered once the body's start is read (so it can be in the caller's protocol)… */
  readonly refusal: GatewayError | undefined;
  /** …or at once, the body not read (gRPC: the protocol is known from the head). */
  readonly refuseUnread: boolean;
}

/** A call past access control, as steps 4–7 see it. */
export interface RoutedCall<C extends ClientCall> {
  readonly call: C;
  readonly exchange: Exchange;
  readonly path: string;
  readonly byHost: boolean;
  /** The peer is a configured trusted proxy (its X-Forwarded-* count). */
  readonly trusted: boolean;
  readonly admission: Admission;
  /** The agent's replica the call goes to (step 3c: task affinity, else the picker; src/fleet/placement.ts). */
  readonly replica: Replica;
}

/** Step 5's result: what the agent gets, plus whatever the binding needs to send it. */
export interface Prepared {
  /** Header fields (or gRPC metadata), name and value alternating; observers may add to them. */
  readonly headers: string[];
}

export interface Binding<C extends ClientCall, P extends Prepared> {
  /** Step 1: no agent is configured for the route; nothing is opened. */
  refuseUnrouted(call: C, agent: string | undefined): Promise<void> | void;
  /** Step 2. */
  head(call: C, upstream: Upstream, target: string, trusted: boolean): HeadCheck;
  /** Step 3: most bytes read before the call goes on (the classifier's cap when inspection is off). */
  readAhead(upstream: Upstream): number;
  /** Step 3: the body's start (HTTP) or the whole request message (gRPC), within the limits. */
  readBody(call: C, upstream: Upstream, onChunk: (chunk: Buffer) => void): Promise<RequestBody>;
  /**
   * Step 4: the gateway answers the call itself — then a promise that resolves when it has —
   * or undefined, decided without waiting (the forwarding path takes no extra turn for it).
   */
  answerItself?(routed: RoutedCall<C>): Promise<void> | undefined;
  /**
   * Step 4b: a resumed stream, answered from the replay window (src/resume/); resolves when the
   * exchange has finished. Absent: the binding's streams are not resumed (they go to the agent).
   */
  resume?(
    routed: RoutedCall<C>,
    resume: ResumeRequest,
    body: RequestBody,
    /** The replica of a task by id (the continuation's SubscribeToTask goes there: step 3c's rules). */
    replicaOf: (taskId: string) => Promise<Replica>,
  ): Promise<void>;
  /** Step 5 (synchronous: on the forwarding path of every call). */
  prepare(routed: RoutedCall<C>): P;
  /**
   * Step 5b: a duplicate of an idempotent send, answered with the first's outcome in the caller's
   * protocol (src/idempotency/replay.ts); resolves when the exchange has finished. Absent: the
   * binding's sends are not covered (they go to the agent).
   */
  replay?(routed: RoutedCall<C>, prepared: P, body: RequestBody, outcome: Outcome): Promise<void>;
  /**
   * Step 6: the timeout rescue takes `send` (decided on the facts, src/rescue/decision.ts);
   * resolves false at once when this binding cannot (the call is then relayed), else true when
   * the exchange has finished.
   */
  rescue(routed: RoutedCall<C>, prepared: P, body: RequestBody, send: BlockingSend): Promise<boolean>;
  /** Step 7: resolves when the exchange has finished. */
  relay(routed: RoutedCall<C>, prepared: P, body: RequestBody): Promise<void>;
  /** Step 8's last resort: answer in the caller's protocol if the call is still there; finish. */
  answerUnexpected(exchange: Exchange, call: C, err: unknown): void;
}
