/**
 * Worker mode sums the workers' registries (src/telemetry/metrics/cluster-metrics.ts, through
 * prom-client's AggregatorRegistry). The hand-written cells (metric-cells.ts) must sum like
 * prom-client's own metrics: the updates spread over several worker registries, each read as JSON
 * and carried like IPC carries it, must expose what one prom-client registry given all the
 * updates exposes, byte for byte. (Amounts are exact in binary, so the sums do not depend on the
 * order they are added in.)
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Counter, Histogram, Registry } from 'prom-client';
import { CellCounter, CellHistogram } from '../../../src/telemetry/metrics/metric-cells.js';
import { aggregateExposition, registryJson } from '../../../src/telemetry/metrics/cluster-metrics.js';

const labelNames = ['agent', 'method'] as const;
const buckets = [0.005, 0.01, 0.1, 1, 10];
const labelValues = fc.tuple(fc.constantFrom('a', 'b'), fc.constantFrom('SendMessage', 'GetTask'));
const amount = fc.constantFrom(0, 0.25, 0.5, 1, 2, 8, 10, 1e6);
const updates = fc.array(fc.tuple(labelValues, amount), { maxLength: 40 });
const workers = fc.integer({ min: 1, max: 3 });
const asObject = (values: readonly string[]) => Object.fromEntries(labelNames.map((name, i) => [name, values[i]!]));

/** Worker w gets the w-th contiguous slice (so series first appear in the same order overall). */
function split<T>(items: readonly T[], n: number): T[][] {
  const size = Math.ceil(items.length / n);
  return [...Array(n).keys()].map((w) => items.slice(w * size, (w + 1) * size));
}

/** As it crosses IPC: JSON (the default serialization of `process.send`). */
const overIpc = async (registry: Registry) => JSON.parse(JSON.stringify(await registryJson(registry)())) as unknown[];

describe('cluster metrics', () => {
  it('summed cell counters expose what one prom-client counter exposes', async () => {
    await fc.assert(
      fc.asyncProperty(updates, workers, async (incs, n) => {
        const theirs = new Registry();
        const counter = new Counter({ name: 'x_total', help: 'h', labelNames, registers: [theirs] });
        const perWorker = await Promise.all(
          split(incs, n).map(async (slice) => {
            const ours = new Registry();
            const cells = new CellCounter({ name: 'x_total', help: 'h', labelNames }, ours);
            for (const [values, by] of slice) cells.inc(values, by);
            return overIpc(ours);
          }),
        );
        for (const [values, by] of incs) counter.inc(asObject(values), by);
        expect((await aggregateExposition(perWorker)).text).toBe(await theirs.metrics());
      }),
    );
  });

  it('summed cell histograms expose what one prom-client histogram exposes', async () => {
    await fc.assert(
      fc.asyncProperty(updates, workers, async (observations, n) => {
        const theirs = new Registry();
        const histogram = new Histogram({ name: 'x_seconds', help: 'h', labelNames, buckets, registers: [theirs] });
        const perWorker = await Promise.all(
          split(observations, n).map(async (slice) => {
            const ours = new Registry();
            const cells = new CellHistogram({ name: 'x_seconds', help: 'h', labelNames, buckets }, ours);
            for (const [values, v] of slice) cells.observe(values, v);
            return overIpc(ours);
          }),
        );
        for (const [values, v] of observations) histogram.observe(asObject(values), v);
        expect((await aggregateExposition(perWorker)).text).toBe(await theirs.metrics());
      }),
    );
  });

  it('answers the Prometheus content type, and an empty exposition for no workers', async () => {
    const registry = new Registry();
    const { contentType, text } = await aggregateExposition([]);
    expect(contentType).toBe(registry.contentType);
    expect(text.trim()).toBe('');
  });
});
