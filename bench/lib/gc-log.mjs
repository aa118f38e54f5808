// The GC pauses of one measured process (and its cluster workers): gc-probe.mjs, preloaded into
// it, appends one line per collection to a file; a measurement's window is read back from it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { summary } from './stats.mjs';

const here = path.dirname(new URL(import.meta.url).pathname);

/** Node options and environment that make a child log its GC pauses to `file`. */
export function gcProbeArgs(file) {
  return {
    nodeArgs: ['--import', pathToFileURL(path.join(here, 'gc-probe.mjs')).href],
    env: { BENCH_GC_LOG: file },
  };
}

/** Every entry of a GC log: {pid, start (CLOCK_MONOTONIC ms), ms, kind}. */
export function readEntries(file) {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const out = [];
  for (const line of text.split('\n')) {
    const [pid, start, ms, kind] = line.split(' ');
    if (kind) out.push({ pid: Number(pid), start: Number(start), ms: Number(ms), kind });
  }
  return out;
}

/**
 * The pauses of `file` that started within [t0, t1] (CLOCK_MONOTONIC ms): count by kind, total,
 * share of the window, p50/p99/max pause. Waits briefly first: entries arrive after the fact.
 */
export async function gcWindow(file, t0, t1) {
  await sleep(60);
  const e = readEntries(file).filter((x) => x.start >= t0 && x.start <= t1);
  // Every kind is time the main thread spent in the collector (incremental marking steps and
  // weak-callback processing too), so every entry counts as a pause.
  const pauses = e;
  const s = summary(pauses.map((x) => x.ms));
  const totalMs = pauses.reduce((a, x) => a + x.ms, 0);
  const seconds = (t1 - t0) / 1000;
  return {
    seconds,
    count: pauses.length,
    scavenges: pauses.filter((x) => x.kind === 'scavenge').length,
    markCompacts: pauses.filter((x) => x.kind === 'mark-compact').length,
    incremental: e.filter((x) => x.kind === 'incremental' || x.kind === 'weakcb').length,
    processes: new Set(e.map((x) => x.pid)).size,
    totalMs,
    pausePercent: seconds > 0 ? totalMs / (seconds * 10) : null,
    p50Ms: s.p50,
    p99Ms: s.p99,
    maxMs: s.max,
    over1ms: pauses.filter((x) => x.ms > 1).length,
  };
}

/**
 * How much of a latency tail the collector explains: of the responses at or above the p99 of
 * `lat` (ms; `ends`: each one's CLOCK_MONOTONIC end, ms), the share whose time in flight overlaps
 * a GC pause of `file`, and the p99 of the responses that overlap none.
 */
export async function gcTail(file, lat, ends) {
  if (!file || lat.length === 0) return null;
  await sleep(60);
  const t0 = ends[0] - lat[0];
  const pauses = readEntries(file)
    .filter((x) => x.start + x.ms >= t0 - 1000)
    .map((x) => [x.start, x.start + x.ms])
    .sort((a, b) => a[0] - b[0]);
  const overlaps = (i) => {
    const from = ends[i] - lat[i];
    // Few pauses per second: a linear scan is cheap enough.
    for (const [a, b] of pauses) {
      if (a > ends[i]) return false;
      if (b >= from) return true;
    }
    return false;
  };
  const p99 = summary(lat).p99;
  let tail = 0;
  let tailInGc = 0;
  const clean = [];
  for (let i = 0; i < lat.length; i++) {
    const hit = overlaps(i);
    if (lat[i] >= p99) {
      tail++;
      if (hit) tailInGc++;
    }
    if (!hit) clean.push(lat[i]);
  }
  return {
    tail,
    tailInGcPercent: tail ? (tailInGc * 100) / tail : null,
    samplesInGc: lat.length - clean.length,
    p99WithoutGcMs: summary(clean).p99,
  };
}
