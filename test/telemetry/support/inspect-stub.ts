/**
 * STAND-IN for the gateway's inspection observer until it lands: the real a2a/ decoders, wired
 * the obvious way, fill `record.a2a` and `record.findings` when the exchange finishes and feed
 * the task tracker — so the telemetry tests see the facts real traffic produces. Replace with
 * the real observer (and delete this file) once it is in src/.
 */
import type { ExchangeObserver, ExchangeRecord } from '../../../src/proxy/exchange.js';
import type { TaskTracker } from '../../../src/tasks/tracker.js';
import { createRequestDecoder, type RequestDecoder } from '../../../src/a2a/request.js';
import { createResponseDecoder, type ResponseDecoder } from '../../../src/a2a/response.js';

interface State {
  request: RequestDecoder;
  requestFacts?: ReturnType<RequestDecoder['end']>;
  response?: ResponseDecoder;
  started: number;
}

const MAX = 256 * 1024;

export function inspectStub(tracker?: TaskTracker): ExchangeObserver {
  const key = {};
  const stateOf = (exchange: { state: Map<object, unknown>; record: ExchangeRecord; req: { headers: Record<string, unknown> } }) => {
    let s = exchange.state.get(key) as State | undefined;
    if (!s) {
      const [path, query = ''] = exchange.record.path.split('?');
      const headers: Record<string, string | undefined> = {};
      for (const [k, v] of Object.entries(exchange.req.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : (v as string | undefined);
      s = { request: createRequestDecoder({ method: exchange.record.httpMethod, path: path!, query, headers }, { maxBytes: MAX }), started: performance.now() };
      exchange.state.set(key, s);
    }
    return s;
  };
  return {
    onRequestChunk: (exchange, chunk) => stateOf(exchange).request.push(chunk),
    onResponseStart(exchange, status, headers) {
      const s = stateOf(exchange);
      s.requestFacts = s.request.end();
      const type = headers['content-type'];
      s.response = createResponseDecoder(s.requestFacts, { status, contentType: Array.isArray(type) ? type[0] : type }, { maxBytes: MAX, clock: () => performance.now() - s.started });
    },
    onResponseChunk: (exchange, chunk) => stateOf(exchange).response?.push(chunk),
    onFinish(exchange) {
      const s = stateOf(exchange);
      const req = s.requestFacts ?? s.request.end();
      if (exchange.record.path.startsWith('/.well-known/')) return;
      const res = s.response?.end({ aborted: exchange.record.outcome !== 'complete' });
      const stream = res?.stream;
      const taskId = res?.taskId ?? req.taskId;
      exchange.record.a2a = {
        binding: req.binding === 'unknown' ? 'jsonrpc' : req.binding,
        version: req.version,
        operation: req.operation,
        kind: res?.tag ?? 'other',
        taskId,
        contextId: res?.contextId ?? req.contextId,
        messageId: res?.messageId ?? req.messageId,
        state: res?.state,
        blocking: req.blocking,
        error: res?.error ? { code: res.error.code, reason: res.error.reason, message: res.error.message } : undefined,
        stream: stream && {
          events: { task: stream.events.task, message: stream.events.message, statusUpdate: stream.events.statusUpdate, artifactUpdate: stream.events.artifactUpdate, error: stream.events.error },
          firstEventMs: stream.firstEventMs,
          keepalives: stream.keepalives,
        },
        partial: req.partial || (res?.partial ?? false),
      };
      for (const f of [...req.findings, ...(res?.findings ?? [])]) exchange.record.findings.push({ rule: f.rule, message: f.detail ?? f.rule });
      if (tracker && taskId && res?.state) tracker.observe(exchange.record.agent, taskId, res.state, Date.now(), res.contextId);
    },
  };
}
