/**
 * One client request through the gateway and everything learned about it. Stages write facts
 * here; observers (access log now, inspection, metrics and traces next) read them when the
 * exchange finishes — exactly once, when the response body ends, aborts or errors (principle 8).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Upstream } from '../transport/upstream.js';
import type { GatewayError } from '../transport/errors.js';
import { performance } from 'node:perf_hooks';
import type { Binding, Operation, ProtocolVersion, TaskState } from '../a2a/operations.js';
import type { Finding } from '../a2a/findings.js';
import type { RescueFacts } from '../rescue/rescue.js';
import type { RequestClassification } from './classify.js';

export type ExchangeOutcome = 'complete' | 'client-gone' | 'upstream-error' | 'gateway-error';

/** The shape an exchange took: a direct Message, a Task, an A2A/JSON-RPC error, or anything else. */
export type ExchangeKind = 'message' | 'task' | 'error' | 'other';

export type StreamEventKind = 'task' | 'message' | 'statusUpdate' | 'artifactUpdate' | 'error';

/** What inspection learned about the A2A exchange (filled by the inspector when the body ends). */
export interface A2AFacts {
  binding: Binding;
  version: ProtocolVersion;
  operation: Operation;
  kind: ExchangeKind;
  taskId?: string;
  contextId?: string;
  messageId?: string;
  /** Final task state, normalised to the 1.0 names whatever the wire said. */
  state?: TaskState;
  /** The send was blocking (1.0 returnImmediately false/absent; 0.3 blocking true/absent). */
  blocking?: boolean;
  /** An A2A or JSON-RPC error answered by the agent (JSON-RPC code, or REST ErrorInfo reason). */
  error?: { code?: number; reason?: string; message?: string };
  /** For SSE responses. */
  stream?: {
    events: Record<StreamEventKind, number>;
    /** Milliseconds from the exchange's start to the first event. */
    firstEventMs?: number;
    keepalives: number;
  };
  /** Inspection hit its byte cap before it found everything it looks for. */
  partial: boolean;
}

export type { Finding };

export interface ExchangeRecord {
  agent: string;
  httpMethod: string;
  /** Path below /agents/{name}, with the query string. */
  path: string;
  startedAt: number;
  /** HTTP status the client received (0 if none was sent). */
  status: number;
  bytesIn: number;
  bytesOut: number;
  /** SSE keepalive comments the gateway wrote into the response. */
  keepalivesSent: number;
  durationMs: number;
  outcome: ExchangeOutcome;
  /** A gateway-side failure (GatewayError reason), distinct from an A2A error the agent sent. */
  error?: { reason: string; message: string };
  /** Undefined for requests inspection could not classify at all (e.g. inspection off). */
  a2a?: A2AFacts;
  findings: Finding[];
  /** Set when the timeout rescue handled this exchange. */
  rescue?: RescueFacts;
}

/** Subscribers to finished exchanges. They must not throw; the pipeline guards them anyway. */
export interface ExchangeObserver {
  /** Just before the request goes to the agent: may add headers (e.g. W3C traceparent). */
  onForward?(exchange: Exchange, headers: string[]): void;
  /** A chunk of the request body as it is sent upstream. */
  onRequestChunk?(exchange: Exchange, chunk: Buffer): void;
  onResponseStart?(exchange: Exchange, status: number, headers: Record<string, string | string[] | undefined>): void;
  /** A chunk of the response body as it is written to the client (a copy is never made). */
  onResponseChunk?(exchange: Exchange, chunk: Buffer): void;
  onFinish?(exchange: Exchange): void;
}

export class Exchange {
  readonly record: ExchangeRecord;
  /** performance.now() at the start, for sub-millisecond intervals. */
  readonly startedAtMonotonic = performance.now();
  private finished = false;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly upstream: Upstream,
    /** Path (and query) to request on the agent: the agent's base path + the part after /agents/{name}. */
    readonly upstreamPath: string,
    readonly observers: readonly ExchangeObserver[],
    /** Per-exchange state owned by observers (decoders, spans), keyed by observer. */
    readonly state = new Map<object, unknown>(),
  ) {
    this.record = {
      agent: upstream.name,
      httpMethod: req.method ?? 'GET',
      path: upstreamPath.slice(upstream.basePath.length) || '/',
      startedAt: Date.now(),
      status: 0,
      bytesIn: 0,
      bytesOut: 0,
      keepalivesSent: 0,
      durationMs: 0,
      outcome: 'complete',
      findings: [],
    };
  }

  /** The request's classification (set by the pipeline as the body is read). */
  classification: RequestClassification | undefined;

  /** Set by the forwarder: ends this exchange now (graceful shutdown after its grace period). */
  terminate: () => void = () => this.res.destroy();

  fail(outcome: ExchangeOutcome, error: GatewayError | Error): void {
    this.record.outcome = outcome;
    const reason = 'reason' in error && typeof error.reason === 'string' ? error.reason : error.name;
    this.record.error = { reason, message: error.message };
  }

  /** Ends the exchange once; later calls are ignored. */
  finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.record.durationMs = Date.now() - this.record.startedAt;
    this.record.status = this.res.headersSent ? this.res.statusCode : this.record.status;
    for (const observer of this.observers) {
      try {
        observer.onFinish?.(this);
      } catch {
        // An observer's failure must never affect traffic (principle 5).
      }
    }
  }
}
