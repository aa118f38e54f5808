/**
 * Turns an exchange's facts into span attributes and span events. Facts may arrive progressively
 * (the inspector fills `record.a2a` as the body goes by) or all at once when the body ends; the
 * event recorder diffs what it saw last time, so either way each stream event and each state
 * change becomes one span event, stamped as early as the facts allowed. Events per span are
 * capped; the first ones are kept (how a stream started is the interesting part) and the rest
 * counted in `a2a.gateway.span_events_dropped`.
 */
import type { Attributes } from '@opentelemetry/api';
import { millisToHrTime } from '@opentelemetry/core';
import type { TimedEvent } from '@opentelemetry/sdk-trace-base';
import type { TaskState } from '../../a2a/task-state.js';
import type { ExchangeRecord, StreamEventKind } from '../../exchange/record.js';
import { STREAM_EVENT_KINDS } from '../../exchange/record.js';
import * as A from './span-attributes.js';

/** What spans read of an exchange's record. */
export interface SpanRecord extends Pick<
  ExchangeRecord,
  'agent' | 'httpMethod' | 'status' | 'outcome' | 'error' | 'a2a'
> {
  /** Only the rule ids: span events carried the details on the request thread. */
  readonly findings: readonly { readonly rule: string }[];
}

/** The span name: the A2A operation (draft convention `{a2a.method.name}`), else the HTTP method. */
export function spanName(record: SpanRecord): string {
  const op = record.a2a?.operation;
  return op && op !== 'unknown' ? op : record.httpMethod;
}

/** `error.type`: a gateway failure's reason, else the agent's A2A error, else a 5xx status. */
export function errorType(record: SpanRecord): string | undefined {
  if (record.error) return record.error.reason;
  const a2aError = record.a2a?.error;
  if (a2aError) return a2aError.reason ?? (a2aError.code !== undefined ? String(a2aError.code) : 'a2a_error');
  return record.status >= 500 ? String(record.status) : undefined;
}

/**
 * Attributes of the server span once the exchange has finished, written into `attrs` (one object
 * per span, built when the span is exported).
 */
export function addServerAttributes(attrs: Attributes, record: SpanRecord): Attributes {
  const a2a = record.a2a;
  if (a2a) {
    attrs[A.ATTR_A2A_PROTOCOL_VERSION] = a2a.version;
    attrs[A.ATTR_GATEWAY_BINDING] = a2a.binding;
    attrs[A.ATTR_GATEWAY_KIND] = a2a.kind;
    attrs[A.ATTR_GATEWAY_PARTIAL] = a2a.partial;
    if (a2a.operation !== 'unknown') attrs[A.ATTR_A2A_METHOD_NAME] = a2a.operation;
    if (a2a.taskId !== undefined) attrs[A.ATTR_A2A_TASK_ID] = a2a.taskId;
    if (a2a.state !== undefined) attrs[A.ATTR_A2A_TASK_STATE] = a2a.state;
    if (a2a.messageId !== undefined) attrs[A.ATTR_A2A_MESSAGE_ID] = a2a.messageId;
    if (a2a.contextId !== undefined) attrs[A.ATTR_GEN_AI_CONVERSATION_ID] = a2a.contextId;
    if (a2a.blocking !== undefined) attrs[A.ATTR_GATEWAY_BLOCKING] = a2a.blocking;
    if (a2a.error) attrs[A.ATTR_GATEWAY_A2A_ERROR] = a2a.error.reason ?? String(a2a.error.code ?? '');
    const stream = a2a.stream;
    if (stream) {
      let events = 0;
      for (const kind of STREAM_EVENT_KINDS) events += stream.events[kind] ?? 0;
      attrs[A.ATTR_GATEWAY_STREAM_EVENTS] = events;
      attrs[A.ATTR_GATEWAY_STREAM_KEEPALIVES] = stream.keepalives;
    }
  }
  attrs[A.ATTR_GATEWAY_OUTCOME] = record.outcome;
  if (record.status > 0) attrs[A.ATTR_HTTP_RESPONSE_STATUS_CODE] = record.status;
  const error = errorType(record);
  if (error !== undefined) attrs[A.ATTR_ERROR_TYPE] = error;
  if (record.findings.length > 0) attrs[A.ATTR_GATEWAY_FINDINGS] = record.findings.map((f) => f.rule);
  return attrs;
}

/**
 * Collects the facts that changed since the last call as span events, up to a cap. Only a sampled
 * exchange has one, so an unsampled stream pays nothing per chunk.
 */
export class SpanEventRecorder {
  readonly events: TimedEvent[] = [];
  private readonly seen: Record<StreamEventKind, number> = {
    task: 0,
    message: 0,
    statusUpdate: 0,
    artifactUpdate: 0,
    error: 0,
  };
  private lastState: TaskState | undefined;
  private findings = 0;
  dropped = 0;

  constructor(private readonly cap: number) {}

  /**
   * False when `sync` would record nothing for `record` from a fresh recorder: no stream, no task
   * state, no finding. Tracing makes a recorder only once this is true (most unary exchanges never).
   */
  static hasFacts(record: ExchangeRecord): boolean {
    const a2a = record.a2a;
    return a2a?.stream !== undefined || a2a?.state !== undefined || record.findings.length > 0;
  }

  /** `at`: epoch milliseconds (fractions allowed) at which the facts were seen. */
  sync(record: ExchangeRecord, at: number): void {
    const a2a = record.a2a;
    const events = a2a?.stream?.events;
    if (events) {
      for (const kind of STREAM_EVENT_KINDS) {
        const now = events[kind] ?? 0;
        for (; this.seen[kind] < now; this.seen[kind]++)
          this.add(A.EVENT_STREAM_EVENT, { [A.ATTR_GATEWAY_STREAM_EVENT]: kind }, at);
      }
    }
    if (a2a?.state !== undefined && a2a.state !== this.lastState) {
      this.lastState = a2a.state;
      this.add(A.EVENT_TASK_STATE, { [A.ATTR_A2A_TASK_STATE]: a2a.state }, at);
    }
    for (; this.findings < record.findings.length; this.findings++) {
      const f = record.findings[this.findings]!;
      this.add(
        A.EVENT_FINDING,
        { [A.ATTR_GATEWAY_FINDING_RULE]: f.rule, [A.ATTR_GATEWAY_FINDING_MESSAGE]: f.detail ?? '' },
        at,
      );
    }
  }

  private add(name: string, attributes: Attributes, at: number): void {
    if (this.events.length >= this.cap) {
      this.dropped++;
      return;
    }
    this.events.push({ name, attributes, time: millisToHrTime(at), droppedAttributesCount: 0 });
  }
}
