/**
 * What the request thread notes for an exchange's spans: the span name, and span events from its
 * facts. Facts may arrive progressively (the inspector fills `record.a2a` as the body goes by) or
 * all at once when the body ends; the event recorder diffs what it saw last time, so either way
 * each stream event and each state change becomes one span event, stamped as early as the facts
 * allowed. Events per span are capped; the first ones are kept (how a stream started is the
 * interesting part) and the rest counted in `a2a.gateway.span_events_dropped`. Attributes are
 * computed on the export thread (record-spans.ts).
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
  'agent' | 'httpMethod' | 'status' | 'outcome' | 'error' | 'a2a' | 'access' | 'gatewayKeepalives'
> {
  /** Only the rule ids: span events carried the details on the request thread. */
  readonly findings: readonly { readonly rule: string }[];
}

/** The span name: the A2A operation (draft convention `{a2a.method.name}`), else the HTTP method. */
export function spanName(record: SpanRecord): string {
  const op = record.a2a?.operation;
  return op && op !== 'unknown' ? op : record.httpMethod;
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
