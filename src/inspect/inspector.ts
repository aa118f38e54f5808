/**
 * Inspection as an exchange observer. The request side is the pipeline's one classification
 * (`exchange.request`, principle 4); the response bytes are fed, as the very chunks the forwarder
 * writes, to the pure response decoder (src/a2a). When the exchange finishes their facts become
 * `record.a2a` and `record.findings`, and the task tracker hears about the task. A decoder
 * failure is caught and becomes a finding; the bytes flow on regardless (principle 5).
 */
import { performance } from 'node:perf_hooks';
import { createResponseDecoder, type ResponseDecoder, type ResponseFacts } from '../a2a/response.js';
import type { Finding } from '../a2a/findings.js';
import type { Exchange, ExchangeObserver, ResponseHeaders } from '../exchange/exchange.js';
import type { A2AFacts } from '../exchange/record.js';
import type { TaskTracker } from '../tasks/tracker.js';
import { toFacts } from './facts.js';

export interface InspectorOptions {
  /** Most bytes inspection reads (and holds) per exchange, whatever the body's size. */
  readonly maxBytes: number;
  readonly tracker: TaskTracker;
}

interface Inspection {
  response?: ResponseDecoder;
  /** performance.now() when the response started, for time to first event. */
  responseStartedAt?: number;
  failure?: string;
}

/** The request side comes from the pipeline's one classification (`exchange.request`). */
export function createInspector(options: InspectorOptions): ExchangeObserver {
  const inspections = new WeakMap<Exchange, Inspection>();

  /** Runs a decoder step; the first failure is remembered and inspection of this exchange stops. */
  const guarded = (inspection: Inspection, step: () => void) => {
    if (inspection.failure !== undefined) return;
    try {
      step();
    } catch (err) {
      inspection.failure = (err as Error).message ?? String(err);
    }
  };

  return {
    name: 'inspection',

    onResponseStart(exchange, status, headers) {
      const request = exchange.request;
      if (!request) return;
      const inspection: Inspection = { responseStartedAt: performance.now() };
      inspections.set(exchange, inspection);
      guarded(inspection, () => {
        inspection.response = createResponseDecoder(request, responseHead(status, headers), {
          maxBytes: options.maxBytes,
          clock: () => performance.now(),
        });
      });
    },

    onResponseChunk(exchange, chunk) {
      const inspection = inspections.get(exchange);
      if (inspection?.response) guarded(inspection, () => inspection.response!.push(chunk));
    },

    onFinish(exchange) {
      const inspection = inspections.get(exchange) ?? {};
      const request = exchange.request;
      let response: ResponseFacts | undefined;
      const aborted = exchange.record.outcome !== 'complete';
      if (inspection.response) guarded(inspection, () => (response = inspection.response!.end({ aborted })));
      const record = exchange.record;
      if (request) {
        // Time to first event counts from the client's request, not from the agent's headers.
        const headersAfterMs =
          inspection.responseStartedAt === undefined ? 0 : inspection.responseStartedAt - exchange.startedAtMonotonic;
        record.a2a = toFacts(request, response, headersAfterMs);
        record.findings.push(...(request.findings as Finding[]), ...((response?.findings ?? []) as Finding[]));
      }
      const failure = inspection.failure ?? exchange.requestFailure;
      if (failure !== undefined) {
        record.findings.push({ rule: 'gateway.inspect-error', count: 1, detail: failure.slice(0, 200) });
      }
      const confirmed = response?.stream?.taskId ?? response?.taskId;
      if (record.a2a && confirmed) {
        trackTask(options.tracker, record.agent, confirmed, record.a2a, record.startedAt + record.durationMs);
      }
    },
  };
}

function responseHead(status: number, headers: ResponseHeaders) {
  const contentType = headers['content-type'];
  const contentEncoding = headers['content-encoding'];
  return {
    status,
    contentType: Array.isArray(contentType) ? contentType[0] : contentType,
    // A compressed body is not decoded: the facts say `partial` instead of a false invalid-json.
    contentEncoding: Array.isArray(contentEncoding) ? contentEncoding.join(',') : contentEncoding,
  };
}

/**
 * Every exchange whose answer names a task moves that task's story along. Only the agent's
 * answer counts: a task id that only the client named (a GetTask for a made-up id) must not
 * make a story, or any client could fill the tracker.
 */
function trackTask(tracker: TaskTracker, agent: string, taskId: string, facts: A2AFacts, at: number): void {
  if (facts.kind === 'error') return;
  tracker.observe(agent, taskId, facts.state, at, facts.contextId);
}
