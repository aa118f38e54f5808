/**
 * One client request through the gateway: its record, the per-request state observers keep, and
 * the one place every observer hook is emitted from (docs/ARCHITECTURE.md, "Observers").
 *
 * Every hook call is guarded (principle 15): an observer that throws is reported to
 * `ObserverSet.failed` (the gateway logs it, rate-limited) and the exchange goes on as if it had
 * not been there, so telemetry can never change status, headers, bytes or timing of an answer
 * (principle 5). The record is finished exactly once (principle 8).
 */
import type { Translation } from '../translate/decision.js';
import { performance } from 'node:perf_hooks';
import type { Replica } from '../transport/replica.js';
import type { Upstream } from '../transport/upstream.js';
import type { RequestFacts } from '../a2a/request.js';
import type { ClientCall } from './call.js';
import type { ExchangeOutcome, ExchangeRecord } from './record.js';
import { nextExchangeId } from './exchange-id.js';

export type ResponseHeaders = Record<string, string | string[] | undefined>;

/** Subscribers to an exchange, called in the order of docs/ARCHITECTURE.md "Observers". */
export interface ExchangeObserver {
  /** Names the observer in the log when it fails. */
  readonly name?: string;
  /** Just before the request goes to the agent: may add headers (e.g. W3C traceparent). */
  onForward?(exchange: Exchange, headers: string[]): void;
  /** A chunk of the request body as it is read from the client. */
  onRequestChunk?(exchange: Exchange, chunk: Buffer): void;
  onResponseStart?(exchange: Exchange, status: number, headers: ResponseHeaders): void;
  /** A chunk of the response body as it is written to the client (a copy is never made). */
  onResponseChunk?(exchange: Exchange, chunk: Buffer): void;
  onFinish?(exchange: Exchange): void;
}

export type ObserverHook = Exclude<keyof ExchangeObserver, 'name'>;
type HookArgs<H extends ObserverHook> =
  Parameters<NonNullable<ExchangeObserver[H]>> extends [Exchange, ...infer Rest] ? Rest : never;

const HOOKS: readonly ObserverHook[] = [
  'onForward',
  'onRequestChunk',
  'onResponseStart',
  'onResponseChunk',
  'onFinish',
];

/** Told about every observer failure; the gateway logs them (observer-failures.ts). */
export type ObserverFailureSink = (observer: ExchangeObserver, hook: ObserverHook, error: unknown) => void;

/**
 * The gateway's observers, made once: per hook, only the observers that implement it, so an
 * exchange never calls a hook nobody listens to.
 */
export class ObserverSet {
  private readonly byHook: Readonly<Record<ObserverHook, readonly ExchangeObserver[]>>;

  constructor(
    readonly observers: readonly ExchangeObserver[],
    readonly failed: ObserverFailureSink = () => {},
  ) {
    const byHook = {} as Record<ObserverHook, ExchangeObserver[]>;
    for (const hook of HOOKS) byHook[hook] = observers.filter((o) => typeof o[hook] === 'function');
    this.byHook = byHook;
  }

  with(hook: ObserverHook): readonly ExchangeObserver[] {
    return this.byHook[hook];
  }
}

export class Exchange {
  readonly record: ExchangeRecord;
  /** performance.now() at the start, for sub-millisecond intervals. */
  readonly startedAtMonotonic = performance.now();
  /** Per-exchange state owned by observers (decoders, spans), keyed by observer. */
  readonly state = new Map<object, unknown>();
  /** The request's one classification (pipeline step 3); undefined until then, or if it failed. */
  request: RequestFacts | undefined;
  /** Why classifying the request failed, if it did (a decoder bug: inspection reports it). */
  requestFailure: string | undefined;
  /**
   * The response's HTTP trailers, set by the gRPC forwarder before `finish` (gRPC's status lives
   * there; a trailers-only answer sets its headers). Undefined for the JSON bindings.
   */
  responseTrailers: ResponseHeaders | undefined = undefined;
  /** The agent's replica the call went to (pipeline step 3c); undefined while not placed, or refused before. */
  replica: Replica | undefined = undefined;
  /**
   * The caller whose share of the agent's unary calls this call holds (pipeline step 3c,
   * src/transport/client-shares.ts); given back when the exchange finishes (src/fleet/observer.ts).
   */
  shareKey: string | undefined = undefined;
  /** Set when the call is translated between A2A versions (pipeline step 3d, src/translate/). */
  translation: Translation | undefined = undefined;
  /**
   * The HTTP status the replica answered with, set by the forwarders when its headers come;
   * undefined when it never answered. Passive health (src/fleet/observer.ts) reads it: a 5xx is
   * the replica's failure, whatever the gateway then told the client.
   */
  replicaStatus: number | undefined = undefined;
  /**
   * Told the task a send created the moment a stage knows it before the answer does (the timeout
   * rescue's returnImmediately reply): an idempotent send records it as its outcome at once
   * (src/idempotency/first-send.ts). Undefined unless that step set it.
   */
  taskNamed: ((taskId: string) => void) | undefined = undefined;
  private finished = false;

  constructor(
    /** The client's call, whatever its binding (src/exchange/call.ts). */
    readonly call: ClientCall,
    readonly upstream: Upstream,
    /** Path (and query) to request on the agent: the agent's base path + the part after /agents/{name}. */
    readonly upstreamPath: string,
    private readonly observers: ObserverSet,
    /** The path as records and logs show it (query values redacted unless configured otherwise). */
    recordPath: string = upstreamPath.slice(upstream.basePath.length) || '/',
  ) {
    this.record = {
      id: nextExchangeId(),
      agent: upstream.name,
      httpMethod: call.method,
      path: recordPath,
      startedAt: Date.now(),
      status: 0,
      bytesIn: 0,
      bytesOut: 0,
      gatewayKeepalives: 0,
      durationMs: 0,
      outcome: 'complete',
      findings: [],
    };
  }

  /** Calls `hook` on every observer that has it, each call guarded: a throw is reported, never rethrown. */
  emit<H extends ObserverHook>(hook: H, ...args: HookArgs<H>): void;
  // Hooks take at most two arguments after the exchange. Fixed parameters rather than a rest
  // array and a spread call: five emits per unary exchange, each allocated an array before.
  emit(hook: ObserverHook, a?: unknown, b?: unknown): void {
    const observers = this.observers.with(hook);
    for (let i = 0; i < observers.length; i++) {
      const observer = observers[i]!;
      try {
        (observer[hook] as (this: ExchangeObserver, exchange: Exchange, a: unknown, b: unknown) => void).call(
          observer,
          this,
          a,
          b,
        );
      } catch (error) {
        this.observers.failed(observer, hook, error);
      }
    }
  }

  /** Set by the forwarder: ends this exchange now (graceful shutdown after its grace period). */
  terminate: () => void = () => this.call.destroy();

  /** Step 3d: the call is translated; the record shows both sides' versions. */
  translate(translation: Translation): void {
    this.translation = translation;
    this.record.translation = { caller: translation.caller, agent: translation.agent, outcome: 'translated' };
  }

  fail(outcome: ExchangeOutcome, error: Error): void {
    this.record.outcome = outcome;
    this.record.error = { reason: reasonOf(outcome, error), message: error.message };
  }

  /** Ends the exchange once; later calls are ignored. */
  finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.record.durationMs = Date.now() - this.record.startedAt;
    this.record.status = this.call.answerStarted ? this.call.answerStatus : this.record.status;
    this.emit('onFinish');
  }
}

/**
 * The record's reason is always one of the closed sets (GATEWAY_ERROR_REASONS, A2A ErrorInfo
 * reasons): a plain Error's class name (`TypeError`, `AbortError`) is not a reason.
 */
function reasonOf(outcome: ExchangeOutcome, error: Error): string {
  if ('reason' in error && typeof error.reason === 'string') return error.reason;
  return outcome === 'client-gone' ? 'CLIENT_GONE' : 'INTERNAL';
}
