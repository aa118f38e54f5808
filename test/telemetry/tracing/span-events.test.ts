import { describe, expect, it } from 'vitest';
import { hrTimeToMilliseconds } from '@opentelemetry/core';
import { SpanEventRecorder } from '../../../src/telemetry/tracing/span-facts.js';
import { facts, record } from '../support/records.js';

const stream = (statusUpdate: number, artifactUpdate = 0) => ({
  events: { task: 1, message: 0, statusUpdate, artifactUpdate, error: 0 },
  agentKeepalives: 0,
});

describe('span events from exchange facts', () => {
  it('adds one event per new stream event and per state change, stamped when the facts appeared', () => {
    const events = new SpanEventRecorder(100);
    const rec = record({
      a2a: facts({ operation: 'SendStreamingMessage', kind: 'task', state: 'TASK_STATE_WORKING', stream: stream(1) }),
    });
    const t0 = Date.now();
    events.sync(rec, t0 + 1_000);
    rec.a2a = { ...rec.a2a!, state: 'TASK_STATE_COMPLETED', stream: stream(2, 1) };
    events.sync(rec, t0 + 2_000);
    events.sync(rec, t0 + 3_000);
    const got = events.events.map(
      (e) =>
        `${Math.round(hrTimeToMilliseconds(e.time) - t0) / 1000}:${e.name}:${Object.values(e.attributes ?? {}).join()}`,
    );
    expect(got).toEqual([
      '1:a2a.stream.event:task',
      '1:a2a.stream.event:statusUpdate',
      '1:a2a.task.state_change:TASK_STATE_WORKING',
      '2:a2a.stream.event:statusUpdate',
      '2:a2a.stream.event:artifactUpdate',
      '2:a2a.task.state_change:TASK_STATE_COMPLETED',
    ]);
    expect(events.dropped).toBe(0);
  });

  it('hasFacts is false only for records a fresh recorder records nothing for (tracing skips the recorder then)', () => {
    const records = [
      record(),
      record({ a2a: facts() }),
      record({ a2a: facts({ kind: 'task', state: 'TASK_STATE_COMPLETED' }) }),
      record({ a2a: facts({ operation: 'SendStreamingMessage', stream: stream(2) }) }),
      record({ findings: [{ rule: 'a2a.stream-first-event', count: 1 }] }),
      record({ a2a: facts({ error: { code: -32001 } }), status: 500 }),
    ];
    for (const rec of records) {
      const fresh = new SpanEventRecorder(100);
      fresh.sync(rec, Date.now());
      expect(fresh.events.length > 0, JSON.stringify(rec)).toBe(SpanEventRecorder.hasFacts(rec));
    }
  });

  it('keeps the first events up to the cap and counts the rest', () => {
    const events = new SpanEventRecorder(3);
    events.sync(
      record({
        a2a: facts({ kind: 'task', state: 'TASK_STATE_COMPLETED', stream: stream(500, 500) }),
        findings: [{ rule: 'a2a.stream-event-after-terminal', count: 1, detail: 'x' }],
      }),
      1_000,
    );
    expect(events.events).toHaveLength(3);
    expect(events.dropped).toBe(1 + 500 + 500 + 1 + 1 - 3);
  });
});
