// One measurement of one scenario against one path. Load comes from autocannon (unary) or
// from the SSE upstream's own pacing (streams); every run is bounded in time and count.
// CPU is read for the measured process and all its descendants (a gateway's cluster workers).
import autocannon from 'autocannon';
import http from 'node:http';
import { A2A_HEADERS } from './payloads.mjs';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  readTreeCpuSeconds as readCpuSeconds,
  readCpuSeconds as readOwnCpuSeconds,
  readMem,
  rssSampler,
  openFds,
} from './procs.mjs';
import { openStream, readUnary, monoMs } from './sse-client.mjs';
import { summary } from './stats.mjs';
import { gcTail } from './gc-log.mjs';

const MB = 1e6;
const MAX_SAMPLES = 2_000_000;

function cpuDelta(pid, before) {
  if (!pid || before === null) return null;
  const after = readCpuSeconds(pid);
  return after === null ? null : after - before;
}

function acOptions(url, body, extra) {
  return {
    url,
    method: 'POST',
    headers: { ...A2A_HEADERS },
    body,
    pipelining: 1,
    timeout: 10,
    // Bound in count as well as in time: a connection stops after this many responses.
    maxConnectionRequests: 5_000_000,
    ...extra,
  };
}

/** Closed-loop throughput at fixed concurrency for `durationS` seconds. */
export async function unaryThroughput({ url, body, connections, durationS, pid, upstreamPid }) {
  const cpu0 = pid ? readCpuSeconds(pid) : null;
  const own0 = pid ? readOwnCpuSeconds(pid) : null;
  const up0 = upstreamPid ? readCpuSeconds(upstreamPid) : null;
  const t0 = monoMs();
  const r = await autocannon(acOptions(url, body, { connections, duration: durationS }));
  const elapsedS = (monoMs() - t0) / 1000;
  const total = r.requests.total;
  const ok = r['2xx'];
  const cpu = cpuDelta(pid, cpu0);
  const own = pid && own0 !== null ? (readOwnCpuSeconds(pid) ?? own0) - own0 : null;
  const upCpu = cpuDelta(upstreamPid, up0);
  return {
    rps: total / elapsedS,
    requests: total,
    ok,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    mbps: r.throughput.total / MB / elapsedS,
    p50ms: r.latency.p50,
    p99ms: r.latency.p99,
    proxyCpuS: cpu,
    cpuPer10k: cpu !== null && ok > 0 ? (cpu * 10000) / ok : null,
    // The measured pid alone (with cluster workers: the primary; cpuPer10k counts them all).
    ownCpuPer10k: own !== null && ok > 0 ? (own * 10000) / ok : null,
    upstreamCpuPer10k: upCpu !== null && ok > 0 ? (upCpu * 10000) / ok : null,
  };
}

/**
 * Closed-loop throughput against several paths at the same time, `connections` each: every path
 * sees the same moments of a noisy machine, so their ratio is steadier than that of runs taken
 * one after the other.
 */
export async function unaryThroughputSideBySide(targets, { body, connections, durationS }) {
  const cpu0 = targets.map((t) => readCpuSeconds(t.pid));
  const t0 = monoMs();
  const runs = await Promise.all(
    targets.map((t) => autocannon(acOptions(t.url, body, { connections, duration: durationS }))),
  );
  const elapsedS = (monoMs() - t0) / 1000;
  return runs.map((r, i) => {
    const cpu = cpuDelta(targets[i].pid, cpu0[i]);
    const ok = r['2xx'];
    return {
      rps: r.requests.total / elapsedS,
      requests: r.requests.total,
      ok,
      errors: r.errors + r.non2xx + r.timeouts,
      cpuPer10k: cpu !== null && ok > 0 ? (cpu * 10000) / ok : null,
    };
  });
}

/**
 * Latency at a fixed moderate rate. autocannon's rate limiter hands each connection its
 * per-second quota at the top of each second, which the connection then sends back to back;
 * with few connections that means little queueing, so the samples show the path's own latency.
 * Latencies are taken from autocannon's per-response event (sub-millisecond, float), not its
 * histogram (whole milliseconds).
 */
export async function unaryLatency({ url, body, rate, connections, durationS, pid, gcLog }) {
  const cpu0 = pid ? readCpuSeconds(pid) : null;
  const t0 = monoMs();
  const lat = [];
  const ends = [];
  const inst = autocannon(acOptions(url, body, { connections, overallRate: rate, duration: durationS }));
  inst.on('response', (_client, statusCode, _bytes, responseTime) => {
    if (statusCode === 200 && lat.length < MAX_SAMPLES) {
      lat.push(responseTime);
      ends.push(monoMs());
    }
  });
  const r = await inst;
  const elapsedS = (monoMs() - t0) / 1000;
  const s = summary(lat);
  const cpu = cpuDelta(pid, cpu0);
  return {
    rate,
    achievedRps: r.requests.total / elapsedS,
    p50ms: s.p50,
    p90ms: s.p90,
    p99ms: s.p99,
    maxms: s.max,
    samples: s.n,
    non2xx: r.non2xx,
    errors: r.errors,
    cpuPer10k: cpu !== null && r['2xx'] > 0 ? (cpu * 10000) / r['2xx'] : null,
    // With the path's GC log: how much of the p99 tail overlapped a collection.
    gcTail: await gcTail(gcLog, lat, ends),
  };
}

/** A short unrecorded run so JITs and connection pools are warm. */
export async function unaryWarmup({ url, body, durationS }) {
  await autocannon(acOptions(url, body, { connections: 8, duration: durationS }));
}

/** One stream of `events` events as fast as the path carries them (scenario 3, throughput). */
export async function sseBurst({ url, events, eventBytes, pid }) {
  const cpu0 = pid ? readCpuSeconds(pid) : null;
  const r = await openStream(url, { events, eventBytes, mode: 'burst' }, { timeoutMs: 120_000 });
  const cpu = cpuDelta(pid, cpu0);
  const s = summary(r.delays);
  const seconds = (r.endMs - r.startMs) / 1000;
  return {
    status: r.status,
    events: r.events,
    complete: r.events === events && !r.error,
    error: r.error,
    eventsPerSec: r.events / seconds,
    mbps: r.bytes / MB / seconds,
    delayP50ms: s.p50,
    delayP99ms: s.p99,
    proxyCpuS: cpu,
  };
}

/** One stream of `events` events at `rate` events/s: the delay each event picks up (scenario 3). */
export async function ssePaced({ url, events, eventBytes, rate }) {
  const r = await openStream(
    url,
    { events, eventBytes, mode: 'paced', rate },
    { timeoutMs: (events / rate) * 1000 + 60_000 },
  );
  const s = summary(r.delays);
  return {
    status: r.status,
    events: r.events,
    complete: r.events === events && !r.error,
    error: r.error,
    rate,
    delayP50ms: s.p50,
    delayP90ms: s.p90,
    delayP99ms: s.p99,
    delayMaxms: s.max,
  };
}

/** `streams` concurrent open streams, an event every `intervalMs` on each (scenario 4). */
export async function sseFanIn({
  url,
  streams,
  intervalMs,
  eventsPerStream,
  eventBytes,
  pid,
  upstreamPid,
  openTimeoutMs = 20_000,
  paced = false,
}) {
  const upstreamSettleMs = await upstreamSettled(upstreamPid, streams);
  const sampler = rssSampler(pid, 100);
  const delays = [];
  let opened = 0;
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  const all = [];
  const t0 = monoMs();
  const timeoutMs = eventsPerStream * intervalMs + 60_000 + (openTimeoutMs - 20_000);
  for (let i = 0; i < streams; i++) {
    all.push(
      openStream(
        url,
        { events: eventsPerStream, eventBytes, mode: 'interval', intervalMs, close: true },
        {
          agent,
          timeoutMs,
          collect: false,
          // Open = answered 200: a refusal (a 502 when the agent cannot take the connection) is
          // not an open stream, and counts among the failed ones below.
          onOpen: (status) => {
            if (status === 200) opened++;
          },
          // The first event (the task) goes out the moment the stream opens, while the client is
          // still opening the others: only the interval events count.
          onEvent: (d, seq) => {
            if (seq > 0 && delays.length < MAX_SAMPLES) delays.push(d);
          },
        },
      ),
    );
    // Open in batches so the listen backlogs never overflow. `paced`: each batch only once the
    // one before is open (bounded), so a proxy slower to accept than the client is to connect is
    // not measured through SYN retries once its backlog overflows (scenario 10).
    if (i % 100 === 99) {
      await sleep(30);
      // Each batch waits up to 10 s, and all of them together no longer than `openTimeoutMs`: a
      // path that cannot open streams costs the run that long, not 10 s per batch.
      const until = Math.min(monoMs() + 10_000, t0 + openTimeoutMs);
      while (paced && opened < i + 1 && monoMs() < until) await sleep(10);
    }
  }
  // RSS once every stream is open (or after `openTimeoutMs`, whichever first).
  const openDeadline = monoMs() + openTimeoutMs;
  while (opened < streams && monoMs() < openDeadline) await sleep(50);
  const openMs = monoMs() - t0;
  await sleep(500);
  const memAllOpen = pid ? readMem(pid) : null;
  const results = await Promise.all(all);
  const mem = sampler.stop();
  agent.destroy();
  const s = summary(delays);
  const failures = results.filter((r) => r.error || r.status !== 200 || r.events !== eventsPerStream);
  return {
    streams,
    opened,
    openMs,
    upstreamSettleMs,
    failed: failures.length,
    failedHow: failureSummary(failures),
    // RSS "with N streams open" means nothing if some never opened or ended early (markdown.mjs worstOf).
    complete: failures.length === 0,
    events: results.reduce((a, r) => a + r.events, 0),
    expectedEvents: streams * eventsPerStream,
    delayP50ms: s.p50,
    delayP99ms: s.p99,
    delayMaxms: s.max,
    rssBaselineMB: mem?.baselineKB != null ? (mem.baselineKB * 1024) / MB : null,
    rssAllOpenMB: memAllOpen ? (memAllOpen.rssKB * 1024) / MB : null,
    rssPeakMB: mem?.peakKB != null ? (mem.peakKB * 1024) / MB : null,
    rssGrowthMB: mem?.baselineKB != null ? ((mem.peakKB - mem.baselineKB) * 1024) / MB : null,
    firstError: results.find((r) => r.error)?.error ?? null,
  };
}

/**
 * The most common ways streams failed, e.g. "4885 × HTTP 502, 0 events": a stream that ends
 * early without an error must show in the results, not only in the event count.
 */
export function failureSummary(failures) {
  const kinds = new Map();
  for (const r of failures) {
    const how = r.error ? `error "${r.error}"` : r.status !== 200 ? `HTTP ${r.status}` : 'ended early';
    const key = `${how}, ${r.events} events`;
    kinds.set(key, (kinds.get(key) ?? 0) + 1);
  }
  const top = [...kinds].sort((a, b) => b[1] - a[1]).slice(0, 3);
  return top.map(([key, n]) => `${n} × ${key}`).join('; ') || null;
}

/**
 * Waits (at most 30 s) until the SSE agent holds no more than a few hundred files, so that one
 * path's fan-in does not start while the last path's connections to it are still open. Two
 * fan-ins' worth (2 × 9,950 sockets) pass the agent's open-files limit; it then accepts and
 * drops each new connection (libuv's EMFILE handling), which the proxy answers with 502. That
 * is what lost scenario 10's events on the paths measured after a gateway variant, whose pools
 * kept the last fan-in's connections for the agent's 65 s keep-alive. The fan-in's streams now
 * close their connections (`close` in the stream's spec, bench/servers/sse-upstream.mjs), so
 * this wait is the guard, not the cure. Returns the milliseconds waited.
 */
async function upstreamSettled(upstreamPid, streams) {
  if (!upstreamPid) return 0;
  const t0 = monoMs();
  const quiet = Math.max(200, streams / 20);
  while ((openFds(upstreamPid) ?? 0) > quiet && monoMs() - t0 < 30_000) await sleep(100);
  return monoMs() - t0;
}

/** One huge unary JSON response (scenario 5). */
export async function largeUnary({ url, body, expectedBytes, pid }) {
  const sampler = rssSampler(pid, 20);
  const cpu0 = pid ? readCpuSeconds(pid) : null;
  const r = await readUnary(url, body, A2A_HEADERS, { timeoutMs: 300_000 });
  const mem = sampler.stop();
  const cpu = cpuDelta(pid, cpu0);
  return {
    status: r.status,
    bytes: r.bytes,
    complete: r.bytes === expectedBytes && r.status === 200 && !r.error,
    error: r.error,
    seconds: r.ms / 1000,
    mbps: r.bytes / MB / (r.ms / 1000),
    rssBaselineMB: mem?.baselineKB != null ? (mem.baselineKB * 1024) / MB : null,
    rssPeakMB: mem?.peakKB != null ? (mem.peakKB * 1024) / MB : null,
    rssGrowthMB: mem?.baselineKB != null ? ((mem.peakKB - mem.baselineKB) * 1024) / MB : null,
    proxyCpuS: cpu,
  };
}

/** One SSE stream of large events adding up to ~`totalBytes` (scenario 5). */
export async function largeSse({ url, totalBytes, eventBytes, pid }) {
  const events = Math.max(3, Math.round(totalBytes / eventBytes) + 2);
  const sampler = rssSampler(pid, 20);
  const cpu0 = pid ? readCpuSeconds(pid) : null;
  const r = await openStream(
    url,
    { events, eventBytes, mode: 'burst', kind: 'artifact' },
    { timeoutMs: 300_000, collect: true },
  );
  const mem = sampler.stop();
  const cpu = cpuDelta(pid, cpu0);
  const seconds = (r.endMs - r.startMs) / 1000;
  const s = summary(r.delays);
  return {
    status: r.status,
    events: r.events,
    bytes: r.bytes,
    complete: r.events === events && !r.error,
    error: r.error,
    seconds,
    mbps: r.bytes / MB / seconds,
    delayP50ms: s.p50,
    delayP99ms: s.p99,
    rssBaselineMB: mem?.baselineKB != null ? (mem.baselineKB * 1024) / MB : null,
    rssPeakMB: mem?.peakKB != null ? (mem.peakKB * 1024) / MB : null,
    rssGrowthMB: mem?.baselineKB != null ? ((mem.peakKB - mem.baselineKB) * 1024) / MB : null,
    proxyCpuS: cpu,
  };
}
