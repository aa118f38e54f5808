// The gRPC load client of scenarios 8 and 9: node:http2 sessions (h2c), many concurrent streams
// multiplexed over a few connections, no gRPC SDK, so the client costs little. Every call is
// checked: HTTP 200, `grpc-status: 0` in the trailers, the expected number of messages (unary:
// byte-identical to the upstream's), no partial frame left. A call that fails any of that is an
// error, counted (with the first reason kept). Every load is bounded in time and in count, and
// every call has a deadline (`grpc-timeout`, and the client cancels it itself after that).
import http2 from 'node:http2';
import { readCpuSeconds, readMem } from './procs.mjs';
import { monoMs } from './sse-client.mjs';
import { summary } from './stats.mjs';
import {
  SEND_MESSAGE,
  SEND_STREAMING_MESSAGE,
  EVENTS_HEADER,
  frame,
  frameReader,
  sendMessageRequest,
  sendMessageResponse,
} from './grpc-wire.mjs';

const MB = 1e6;
const MAX_SAMPLES = 2_000_000;
const CALL_TIMEOUT_MS = 10_000;

const REQUEST = frame(sendMessageRequest());
/** What the upstream answers SendMessage with: the gateway must pass it on unchanged. */
export const UNARY_RESPONSE = Buffer.from(sendMessageResponse());

/** `n` HTTP/2 connections to `address` (host:port), once each is connected. */
export async function openSessions(address, n) {
  const sessions = [];
  try {
    for (let i = 0; i < n; i++) {
      const s = http2.connect(`http://${address}`);
      s.on('error', () => {});
      sessions.push(s);
      await new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`no HTTP/2 connection to ${address} within 5 s`)), 5000);
        s.once('connect', () => {
          clearTimeout(t);
          resolve();
        });
        s.once('error', (err) => {
          clearTimeout(t);
          reject(err);
        });
      });
    }
  } catch (err) {
    closeSessions(sessions);
    throw err;
  }
  return sessions;
}

export function closeSessions(sessions) {
  for (const s of sessions) if (!s.destroyed) s.destroy();
}

/**
 * One call on `session`. Resolves (never rejects) with {ok, error, messages, bytes, ms}.
 * `expect`: {messages, bytes?} — the message count, and for unary the one message's bytes.
 */
export function grpcCall(session, { path, headers = {}, expect }) {
  return new Promise((resolve) => {
    const t0 = monoMs();
    let httpStatus;
    let grpcStatus;
    let grpcMessage;
    let messages = 0;
    let bytes = 0;
    let mismatch = false;
    let streamError;
    const reader = frameReader((m) => {
      messages++;
      if (expect.bytes && !m.equals(expect.bytes)) mismatch = true;
    });
    let req;
    try {
      req = session.request({
        ':method': 'POST',
        ':path': path,
        'content-type': 'application/grpc',
        te: 'trailers',
        'a2a-version': '1.0',
        'grpc-timeout': `${CALL_TIMEOUT_MS}m`,
        ...headers,
      });
    } catch (err) {
      resolve({ ok: false, error: `request: ${err.message}`, messages: 0, bytes: 0, ms: 0 });
      return;
    }
    const timer = setTimeout(() => {
      streamError ??= `no answer within ${CALL_TIMEOUT_MS} ms`;
      req.close(http2.constants.NGHTTP2_CANCEL);
    }, CALL_TIMEOUT_MS + 1000);
    req.on('response', (h) => {
      httpStatus = h[':status'];
      // A trailers-only answer carries the status in its one header block.
      if (h['grpc-status'] !== undefined) {
        grpcStatus = String(h['grpc-status']);
        grpcMessage = h['grpc-message'];
      }
    });
    req.on('data', (chunk) => {
      bytes += chunk.length;
      reader.push(chunk);
    });
    req.on('trailers', (t) => {
      grpcStatus = String(t['grpc-status']);
      grpcMessage = t['grpc-message'];
    });
    req.on('error', (err) => {
      streamError ??= err.message;
    });
    req.on('close', () => {
      clearTimeout(timer);
      const ms = monoMs() - t0;
      let error = streamError;
      if (!error && httpStatus !== 200) error = `HTTP ${httpStatus}`;
      if (!error && grpcStatus !== '0')
        error = `grpc-status ${grpcStatus ?? 'missing'}${grpcMessage ? ` (${grpcMessage})` : ''}`;
      if (!error && reader.pending) error = `${reader.pending} B of a partial message`;
      if (!error && messages !== expect.messages) error = `${messages}/${expect.messages} messages`;
      if (!error && mismatch) error = "message differs from the upstream's";
      resolve({ ok: !error, error, messages, bytes, ms });
    });
    req.end(REQUEST);
  });
}

const UNARY = { path: SEND_MESSAGE, expect: { messages: 1, bytes: UNARY_RESPONSE } };
const streamCall = (events) => ({
  path: SEND_STREAMING_MESSAGE,
  headers: { [EVENTS_HEADER]: String(events) },
  expect: { messages: events },
});

/** Tallies of one load: calls, errors (first reason), latencies, messages, bytes. */
function tally() {
  const t = { calls: 0, ok: 0, errors: 0, firstError: null, lat: [], messages: 0, bytes: 0 };
  t.add = (r) => {
    t.calls++;
    t.messages += r.ok ? r.messages : 0;
    t.bytes += r.bytes;
    if (r.ok) {
      t.ok++;
      if (t.lat.length < MAX_SAMPLES) t.lat.push(r.ms);
    } else {
      t.errors++;
      t.firstError ??= r.error;
    }
  };
  return t;
}

/** CPU and memory of the measured process (and the upstream's CPU) around one load. */
function meter(pid, upstreamPid) {
  const cpu0 = pid ? readCpuSeconds(pid) : null;
  const up0 = upstreamPid ? readCpuSeconds(upstreamPid) : null;
  const t0 = monoMs();
  return (per) => {
    const elapsedS = (monoMs() - t0) / 1000;
    const cpu = cpu0 === null ? null : readCpuSeconds(pid) - cpu0;
    const up = up0 === null ? null : readCpuSeconds(upstreamPid) - up0;
    const mem = pid ? readMem(pid) : null;
    return {
      elapsedS,
      proxyCpuS: cpu,
      cpuPer10k: cpu !== null && per > 0 ? (cpu * 10000) / per : null,
      upstreamCpuPer10k: up !== null && per > 0 ? (up * 10000) / per : null,
      rssMB: mem ? (mem.rssKB * 1024) / MB : null,
    };
  };
}

/** `workers` loops of back-to-back calls over `sessions` until `durationS` or `maxCalls`. */
async function closedLoop(sessions, { workers, durationS, maxCalls, call, t }) {
  const end = monoMs() + durationS * 1000;
  let started = 0;
  const worker = async (i) => {
    const session = sessions[i % sessions.length];
    while (monoMs() < end && started < maxCalls) {
      started++;
      t.add(await grpcCall(session, call));
    }
  };
  await Promise.all(Array.from({ length: workers }, (_, i) => worker(i)));
}

/**
 * Closed-loop unary SendMessage: `concurrency` calls in flight over `connections` HTTP/2
 * connections for `durationS` (at most `maxCalls`). Calls/s, latency percentiles, CPU per 10k.
 */
export async function grpcUnaryThroughput({
  address,
  connections,
  concurrency,
  durationS,
  maxCalls = 5_000_000,
  pid,
  upstreamPid,
}) {
  const sessions = await openSessions(address, connections);
  const t = tally();
  try {
    const done = meter(pid, upstreamPid);
    await closedLoop(sessions, { workers: concurrency, durationS, maxCalls, call: UNARY, t });
    const m = done(t.ok);
    const s = summary(t.lat);
    return {
      rps: t.ok / m.elapsedS,
      calls: t.calls,
      ok: t.ok,
      errors: t.errors,
      firstError: t.firstError,
      p50ms: s.p50,
      p99ms: s.p99,
      ...m,
    };
  } finally {
    closeSessions(sessions);
  }
}

/**
 * Unary SendMessage at a fixed rate (open loop: calls start on schedule, whatever is in flight),
 * over `connections` connections: the path's own latency, p50/p90/p99.
 */
export async function grpcUnaryLatency({ address, connections, rate, durationS, pid }) {
  const sessions = await openSessions(address, connections);
  const t = tally();
  try {
    const done = meter(pid);
    const total = Math.round(rate * durationS);
    const start = monoMs();
    const inflight = new Set();
    let sent = 0;
    while (sent < total) {
      const due = Math.min(total, Math.floor(((monoMs() - start) * rate) / 1000) + 1);
      while (sent < due) {
        const p = grpcCall(sessions[sent % sessions.length], UNARY).then((r) => {
          t.add(r);
          inflight.delete(p);
        });
        inflight.add(p);
        sent++;
      }
      await new Promise((r) => setTimeout(r, 1));
    }
    await Promise.all(inflight);
    const m = done(t.ok);
    const s = summary(t.lat);
    return {
      rate,
      achievedRps: t.calls / m.elapsedS,
      p50ms: s.p50,
      p90ms: s.p90,
      p99ms: s.p99,
      maxms: s.max,
      samples: s.n,
      errors: t.errors,
      firstError: t.firstError,
      cpuPer10k: m.cpuPer10k,
    };
  } finally {
    closeSessions(sessions);
  }
}

/**
 * Closed-loop SendStreamingMessage: `concurrency` streams of `events` messages each in flight
 * over `connections` connections for `durationS` (at most `maxStreams`); the upstream writes as
 * fast as each stream takes them. Events/s over all streams, stream durations, CPU per 10k events.
 */
export async function grpcStreamThroughput({
  address,
  connections,
  concurrency,
  events,
  durationS,
  maxStreams = 100_000,
  pid,
  upstreamPid,
}) {
  const sessions = await openSessions(address, connections);
  const t = tally();
  try {
    const done = meter(pid, upstreamPid);
    await closedLoop(sessions, { workers: concurrency, durationS, maxCalls: maxStreams, call: streamCall(events), t });
    const m = done(t.messages);
    const s = summary(t.lat);
    return {
      eventsPerSec: t.messages / m.elapsedS,
      mbps: t.bytes / MB / m.elapsedS,
      streams: t.calls,
      ok: t.ok,
      events: t.messages,
      errors: t.errors,
      firstError: t.firstError,
      streamP50ms: s.p50,
      streamP99ms: s.p99,
      ...m,
    };
  } finally {
    closeSessions(sessions);
  }
}

/** One call of each kind on a fresh connection: throws with the reason when either fails. */
export async function checkGrpcPath(address, events = 10) {
  const [session] = await openSessions(address, 1);
  try {
    const u = await grpcCall(session, UNARY);
    if (!u.ok) throw new Error(`gRPC SendMessage: ${u.error}`);
    const s = await grpcCall(session, streamCall(events));
    if (!s.ok) throw new Error(`gRPC SendStreamingMessage: ${s.error}`);
  } finally {
    closeSessions([session]);
  }
}
