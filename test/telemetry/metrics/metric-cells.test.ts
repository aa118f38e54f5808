/**
 * The cell counter and histogram against prom-client's own Counter and Histogram as the oracle:
 * the same updates must give the same exposition text, byte for byte.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Counter, Histogram, Registry } from 'prom-client';
import { CellCounter, CellHistogram } from '../../../src/telemetry/metrics/metric-cells.js';

const labelNames = ['agent', 'method', 'kind'] as const;
const buckets = [0.005, 0.01, 0.1, 1, 10];
const labelValues = fc.tuple(
  fc.constantFrom('a', 'b'),
  fc.constantFrom('SendMessage', 'GetTask', 'other'),
  fc.constantFrom('message', 'task'),
);
const amount = fc.oneof(fc.constantFrom(0, ...buckets, 1e6, -1), fc.double({ min: -1, max: 100, noNaN: true }));
const updates = fc.array(fc.tuple(labelValues, amount), { maxLength: 40 });
const asObject = (values: readonly string[]) => Object.fromEntries(labelNames.map((name, i) => [name, values[i]!]));

describe('metric cells', () => {
  it('a counter exposes what prom-client exposes for the same increments', async () => {
    await fc.assert(
      fc.asyncProperty(updates, async (incs) => {
        const [ours, theirs] = [new Registry(), new Registry()];
        const cells = new CellCounter({ name: 'x_total', help: 'h', labelNames }, ours);
        const counter = new Counter({ name: 'x_total', help: 'h', labelNames, registers: [theirs] });
        for (const [values, n] of incs) {
          cells.inc(values, Math.abs(n));
          counter.inc(asObject(values), Math.abs(n));
        }
        expect(await ours.metrics()).toBe(await theirs.metrics());
      }),
    );
  });

  it('a histogram exposes what prom-client exposes for the same observations (buckets, sum, count)', async () => {
    await fc.assert(
      fc.asyncProperty(updates, async (observations) => {
        const [ours, theirs] = [new Registry(), new Registry()];
        const cells = new CellHistogram({ name: 'x_seconds', help: 'h', labelNames, buckets }, ours);
        const histogram = new Histogram({ name: 'x_seconds', help: 'h', labelNames, buckets, registers: [theirs] });
        for (const [values, v] of observations) {
          cells.observe(values, v);
          histogram.observe(asObject(values), v);
        }
        expect(await ours.metrics()).toBe(await theirs.metrics());
      }),
    );
  });

  it('a histogram ignores values no bucket can hold, and reset empties both kinds', async () => {
    const registry = new Registry();
    const histogram = new CellHistogram({ name: 'x_seconds', help: 'h', labelNames, buckets }, registry);
    const counter = new CellCounter({ name: 'x_total', help: 'h', labelNames }, registry);
    histogram.observe(['a', 'GetTask', 'task'], NaN);
    histogram.observe(['a', 'GetTask', 'task'], Infinity);
    expect((await histogram.get()).values).toEqual([]);
    histogram.observe(['a', 'GetTask', 'task'], 0.5);
    counter.inc(['a', 'GetTask', 'task']);
    registry.resetMetrics();
    expect((await histogram.get()).values).toEqual([]);
    expect((await counter.get()).values).toEqual([]);
  });
});
