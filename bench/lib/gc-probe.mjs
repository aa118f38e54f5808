// Preloaded into every Node path the harness measures (`node --import gc-probe.mjs …`; cluster
// workers inherit it through execArgv): each garbage collection the process makes, as one line
// `<pid> <start, CLOCK_MONOTONIC ms> <pause ms> <kind>` appended to the file BENCH_GC_LOG names.
// The harness reads the lines of a measurement's window (lib/gc-log.mjs). perf_hooks delivers
// GC entries in batches after the fact, so this costs one small write per batch, not per GC.
import { openSync, writeSync } from 'node:fs';
import { PerformanceObserver, performance, constants } from 'node:perf_hooks';

const file = process.env.BENCH_GC_LOG;
if (file) {
  const fd = openSync(file, 'a');
  // performance.now() is ms since timeOrigin; hrtime is CLOCK_MONOTONIC, the harness's clock.
  const offset = Number(process.hrtime.bigint()) / 1e6 - performance.now();
  const KIND = {
    [constants.NODE_PERFORMANCE_GC_MINOR]: 'scavenge',
    [constants.NODE_PERFORMANCE_GC_MAJOR]: 'mark-compact',
    [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
    [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
  };
  const obs = new PerformanceObserver((list) => {
    let out = '';
    for (const e of list.getEntries()) {
      const kind = KIND[e.detail?.kind ?? e.kind] ?? 'other';
      out += `${process.pid} ${(e.startTime + offset).toFixed(3)} ${e.duration.toFixed(4)} ${kind}\n`;
    }
    if (out) writeSync(fd, out);
  });
  obs.observe({ entryTypes: ['gc'] });
}
