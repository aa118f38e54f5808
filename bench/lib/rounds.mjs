// Rounds of one measurement over every path, in an order that changes each round.
import { medianOfRounds } from './stats.mjs';
import { gcWindow } from './gc-log.mjs';
import { monoMs } from './sse-client.mjs';

/** Rotate the path order each round (ABCD, BCDA, ...) so no path always runs first or last. */
export function rotated(list, r) {
  const k = r % list.length;
  return list.slice(k).concat(list.slice(0, k));
}

/** One console line per measurement; `describe` knows the measurement's fields. */
function line(v, describe) {
  if (!v) return '—';
  if (v.error && v.rps === undefined && v.events === undefined) return `error: ${v.error}`;
  return describe(v);
}

/**
 * `rounds` rounds of `measure(path, round)` over `ctx.paths`. A measurement that throws is kept
 * as {error}. Returns {byPath: {<path>: {rounds, median}}} as results.json holds it (median over
 * the rounds without an error), or undefined when nothing was measured. A path with a GC log
 * (`p.gcLog`, lib/gc-probe.mjs) gets the round's GC pauses as `gc` in each measurement.
 */
export async function runRounds(ctx, key, rounds, measure, describe) {
  const byPath = {};
  for (let r = 0; r < rounds; r++) {
    for (const p of rotated(ctx.paths, r)) {
      let v;
      const t0 = monoMs();
      try {
        v = await measure(p, r);
      } catch (err) {
        v = { error: err.message };
      }
      // The GC pauses the path's process made during this measurement (paths with a GC log).
      if (p.gcLog && v && !v.error) v.gc = await gcWindow(p.gcLog, t0, monoMs());
      (byPath[p.name] ??= { rounds: [] }).rounds[r] = v;
      const gc = v?.gc
        ? `; gc ${v.gc.count} pauses, ${v.gc.totalMs.toFixed(1)} ms, max ${v.gc.maxMs?.toFixed(2) ?? '—'} ms`
        : '';
      ctx.log(`  [${key} r${r + 1}] ${p.name.padEnd(10)} ${line(v, describe)}${gc}`);
    }
  }
  for (const slot of Object.values(byPath)) slot.median = medianOfRounds(slot.rounds.filter((x) => x && !x.error));
  return Object.keys(byPath).length ? { byPath } : undefined;
}
