/**
 * Inspection as an exchange observer. The request side is the pipeline's one classification
 * (`exchange.request`, principle 4); the response bytes are fed, as the very chunks the forwarder
 * writes, to the pure response decoder (src/a2a). When the exchange finishes their facts become
 * `record.a2a` and `record.findings`, and the task tracker hears about the task. A decoder
 * failure is caught and becomes a finding; the bytes flow on regardless (principle 5).
 */
import { performance } from 'node:perf_hooks';
import {
  createResponseDecoder,
  responseHoldBytes,
  type ResponseDecoder,
  type ResponseFacts,
  type ResponseHead,
  type StreamProgress,
} from '../a2a/response.js';
import type { RequestFacts } from '../a2a/request.js';
import type { Finding } from '../a2a/findings.js';
import type { Exchange, ExchangeObserver, ResponseHeaders } from '../exchange/exchange.js';
import type { A2AFacts, ExchangeRecord, TaskMarks } from '../exchange/record.js';
import { parseAgentTimestamp } from '../tasks/agent-time.js';
import { refusalOf } from '../tasks/refusal.js';
import type { TaskTracker } from '../tasks/tracker.js';
import type { InspectionBudget } from './budget.js';
import { toFacts } from './facts.js';
import type { StreamEventsMode } from '../a2a/stream.js';

export interface InspectorOptions {
  /** Most bytes inspection reads (and holds) per exchange, whatever the body's size. */
  readonly maxBytes: number;
  /** How later stream events are read (`inspection.streamEvents`; default `head`). */
  readonly streamEvents?: StreamEventsMode;
  readonly tracker: TaskTracker;
  /** What all exchanges' decoders may hold together (src/inspect/budget.ts); none: no global cap. */
  readonly budget?: InspectionBudget;
}

/**
 * Per-exchange inspection state. A class with every field set in the constructor: one shape for
 * all exchanges, and no closure per hook (the hooks call the decoder in their own try/catch).
 * Measured on bench scenario 1's exchange (251 B Message), in CPU time, alternating rounds: the
 * whole inspector costs ~1.6–1.8 µs per exchange (about half JSON.parse of the body, which is
 * the floor), before and after this shape; what it saves is ~150–250 B of garbage per exchange.
 */
class Inspection {
  response: ResponseDecoder | undefined = undefined;
  failure: string | undefined = undefined;
  /** Bytes this exchange holds in the budget; 0 once given back. */
  reserved = 0;
  /** Set when the budget granted less than the decoder would hold: the bytes it got. */
  shortenedTo: number | undefined = undefined;
  /** The stream's task has been reported to the tracker already (its first event). */
  claimed = false;
  /** A stream's marks so far (record.a2a.marks), and how much of its progress they cover. */
  marks: TaskMarks | undefined = undefined;
  statesMarked = 0;
  artifactsMarked = 0;

  /** `responseStartedAt`: performance.now() when the response started, for time to first event. */
  constructor(readonly responseStartedAt: number | undefined) {}

  /** Keeps the first failure; inspection of this exchange stops there. */
  fail(err: unknown): void {
    this.failure ??= (err as Error)?.message ?? String(err);
  }
}

/** Most marks per exchange of each kind (64 in all): artifact updates cannot crowd states out. */
const MAX_MARKS_EACH = 32;

/** One clock for every decoder, not a closure per exchange. */
const clock = (): number => performance.now();

/** The request side comes from the pipeline's one classification (`exchange.request`). */
export function createInspector(options: InspectorOptions): ExchangeObserver {
  const inspections = new WeakMap<Exchange, Inspection>();

  /** Gives the exchange's reservation back, once (later calls find nothing reserved). */
  const release = (inspection: Inspection) => {
    if (inspection.reserved > 0) options.budget?.release(inspection.reserved);
    inspection.reserved = 0;
  };

  return {
    name: 'inspection',

    onResponseStart(exchange, status, headers) {
      const request = exchange.request;
      if (!request) return;
      const previous = inspections.get(exchange);
      if (previous) release(previous); // a second response start would otherwise leak the first grant
      const inspection = new Inspection(performance.now());
      inspections.set(exchange, inspection);
      try {
        startDecoder(inspection, request, responseHead(status, headers), options);
      } catch (err) {
        inspection.fail(err);
      }
    },

    onResponseChunk(exchange, chunk) {
      const inspection = inspections.get(exchange);
      const response = inspection?.response;
      if (response === undefined) return;
      if (inspection!.failure === undefined) {
        try {
          response.push(chunk);
        } catch (err) {
          inspection!.fail(err);
        }
      }
      const progress = response.streamProgress;
      if (progress !== undefined) markProgress(inspection!, progress);
      if (!inspection!.claimed && response.streamTaskId !== undefined)
        claimStream(options.tracker, exchange, inspection!);
    },

    onFinish(exchange) {
      const inspection = inspections.get(exchange);
      // First, so nothing below can keep the grant from going back (onFinish comes exactly once,
      // on every outcome: principle 8).
      if (inspection) release(inspection);
      inspections.delete(exchange);
      const response = inspection && endDecoder(exchange, inspection);
      const record = exchange.record;
      if (exchange.request) recordFacts(exchange, exchange.request, inspection, response, options.maxBytes);
      const failure = inspection?.failure ?? exchange.requestFailure;
      if (failure !== undefined) {
        record.findings.push({ rule: 'gateway.inspect-error', count: 1, detail: failure.slice(0, 200) });
      }
      claimContext(options.tracker, record, response);
      const confirmed = response?.stream?.taskId ?? response?.taskId;
      if (response && !inspection?.claimed) nameOnce(options.tracker, exchange, response, confirmed);
      if (record.a2a && confirmed) {
        const at = record.startedAt + record.durationMs;
        const principal = record.access?.principal;
        // A unary Task's own status.timestamp (streams are stamped as their events go by).
        const agentAt = response?.stream ? undefined : parseAgentTimestamp(response?.stateTimestamp);
        const seen = { at, principal, agentAt, tenant: record.a2a.tenant };
        trackTask(options.tracker, record.agent, confirmed, record.a2a, seen);
      }
      noteRefusal(options.tracker, exchange);
    },
  };
}

/** A refused call naming a task goes on that task's timeline, its state untouched (src/tasks/refusal.ts). */
function noteRefusal(tracker: TaskTracker, exchange: Exchange): void {
  const request = exchange.request;
  const taskId = request?.taskId;
  if (request === undefined || taskId === undefined) return;
  const reason = refusalOf(exchange.record);
  if (reason === undefined) return;
  tracker.store.refuse(exchange.record.agent, taskId, { at: Date.now(), reason, operation: request.operation });
}

/** The response decoder for this head, within what the budget grants. */
function startDecoder(
  inspection: Inspection,
  request: RequestFacts,
  head: ResponseHead,
  { maxBytes, budget, streamEvents }: InspectorOptions,
): void {
  const want = responseHoldBytes(head, { maxBytes });
  const granted = budget ? budget.reserve(want) : want;
  inspection.reserved = budget ? granted : 0;
  if (granted < want) inspection.shortenedTo = granted;
  inspection.response = createResponseDecoder(request, head, {
    maxBytes,
    maxEventBytes: granted < want ? granted : undefined,
    streamEvents,
    clock,
  });
}

/** The decoder's facts, unless it failed before (or while) ending. */
function endDecoder(exchange: Exchange, inspection: Inspection): ResponseFacts | undefined {
  const response = inspection.response;
  inspection.response = undefined;
  if (response === undefined || inspection.failure !== undefined) return undefined;
  try {
    return response.end({ aborted: exchange.record.outcome !== 'complete', trailers: exchange.responseTrailers });
  } catch (err) {
    inspection.fail(err);
    return undefined;
  }
}

/**
 * A stream's task (and context) is owned from its first event: the caller may GetTask or cancel
 * it while the stream is still open (task ownership, src/access/gate.ts).
 */
function claimStream(tracker: TaskTracker, exchange: Exchange, inspection: Inspection): void {
  const response = inspection.response!;
  inspection.claimed = true;
  const { agent } = exchange.record;
  const [taskId, contextId] = [response.streamTaskId!, response.streamContextId];
  tracker.named({ agent, replica: exchange.replica?.url, taskId, ...(contextId !== undefined ? { contextId } : {}) });
  const principal = exchange.record.access?.principal;
  if (principal === undefined) return;
  const at = Date.now();
  tracker.observe(agent, taskId, { at, principal, shown: true });
  if (contextId !== undefined) tracker.store.claimContext(agent, contextId, principal, at);
}

/** `record.a2a` and the request's and response's findings. */
function recordFacts(
  exchange: Exchange,
  request: RequestFacts,
  inspection: Inspection | undefined,
  response: ResponseFacts | undefined,
  maxBytes: number,
): void {
  const record = exchange.record;
  // Time to first event counts from the client's request, not from the agent's headers.
  const startedAt = inspection?.responseStartedAt;
  const headersAfterMs = startedAt === undefined ? 0 : startedAt - exchange.startedAtMonotonic;
  record.a2a = toFacts(request, response, headersAfterMs);
  const marks = inspection?.marks ?? unaryMarks(response, record.startedAt + record.durationMs);
  if (marks) record.a2a.marks = marks;
  // Most exchanges have no finding: push only what there is (no spread of empty arrays).
  for (const finding of request.findings) record.findings.push(finding as Finding);
  const responseFindings = (response?.findings ?? NO_FINDINGS) as Finding[];
  if (responseFindings.length === 0) return;
  const shortenedTo = inspection?.shortenedTo;
  const found = shortenedTo === undefined ? responseFindings : blameBudget(responseFindings, shortenedTo, maxBytes);
  for (const finding of found) record.findings.push(finding);
}

const NO_FINDINGS: readonly Finding[] = [];

/**
 * Stamps what the chunk just passed showed the client: each new state change and artifact
 * update, at this moment (the forwarder writes the chunk right after). O(1) per chunk unless
 * something changed; at most MAX_MARKS_EACH states and as many artifact updates per exchange.
 */
function markProgress(inspection: Inspection, progress: StreamProgress): void {
  const { stateChanges, artifactUpdates } = progress;
  const statesFrom = inspection.statesMarked;
  const artifactsFrom = inspection.artifactsMarked;
  if (stateChanges.length === statesFrom && artifactUpdates === artifactsFrom) return;
  inspection.statesMarked = stateChanges.length;
  inspection.artifactsMarked = artifactUpdates;
  const at = Date.now();
  const marks = (inspection.marks ??= { states: [], artifactsAt: [] });
  const { states, artifactsAt } = marks;
  for (let i = statesFrom; i < stateChanges.length && states.length < MAX_MARKS_EACH; i++) {
    states.push({ state: stateChanges[i]!, at });
  }
  for (let i = artifactsFrom; i < artifactUpdates && artifactsAt.length < MAX_MARKS_EACH; i++) artifactsAt.push(at);
}

/** A unary answer shows its one state when it ends. */
function unaryMarks(response: ResponseFacts | undefined, at: number): TaskMarks | undefined {
  if (response?.stream || response?.state === undefined || response.tag !== 'task') return undefined;
  return { states: [{ state: response.state, at }], artifactsAt: [] };
}

/** A unary answer (or a stream whose first event named nothing) that named a task or a context. */
function nameOnce(tracker: TaskTracker, exchange: Exchange, response: ResponseFacts, taskId: string | undefined): void {
  const contextId = response.tag === 'error' ? undefined : (response.stream?.contextId ?? response.contextId);
  if (taskId === undefined && contextId === undefined) return;
  tracker.named({
    agent: exchange.record.agent,
    replica: exchange.replica?.url,
    ...(taskId !== undefined ? { taskId } : {}),
    ...(contextId !== undefined ? { contextId } : {}),
  });
}

/** The context the agent's answer named (a message's or a task's) is owned by the caller that got it first. */
function claimContext(tracker: TaskTracker, record: ExchangeRecord, response: ResponseFacts | undefined): void {
  const principal = record.access?.principal;
  const contextId = response?.stream?.contextId ?? response?.contextId;
  if (principal === undefined || contextId === undefined || response?.tag === 'error') return;
  tracker.store.claimContext(record.agent, contextId, principal, record.startedAt + record.durationMs);
}

/** A shortened exchange that came out partial says why: the global budget, not its own size. */
function blameBudget(findings: Finding[], granted: number, maxBytes: number): Finding[] {
  const why = `global inspection budget (inspection.budgetBytes) reached: inspected ${granted} of ${maxBytes} bytes`;
  return findings.map((f) =>
    f.rule === 'gateway.inspect-partial' ? { ...f, detail: f.detail ? `${f.detail}; ${why}` : why } : f,
  );
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
function trackTask(
  tracker: TaskTracker,
  agent: string,
  taskId: string,
  facts: A2AFacts,
  seen: { at: number; principal: string | undefined; agentAt: number | undefined; tenant: string | undefined },
): void {
  if (facts.kind === 'error') return;
  const { principal, agentAt, tenant } = seen;
  const common = { contextId: facts.contextId, principal, shown: true, ...(tenant ? { tenant } : {}) };
  // A stream's states each with when it went by, in order; a reply's one state at its end.
  const states = facts.stream ? facts.marks?.states : undefined;
  if (states === undefined || states.length === 0) {
    tracker.observe(agent, taskId, { ...common, state: facts.state, at: seen.at, agentAt });
    return;
  }
  for (const { state, at } of states) tracker.observe(agent, taskId, { ...common, state, at });
  // Past the marks' cap the stream's last state still counts, at its end.
  if (facts.state !== undefined && facts.state !== states.at(-1)!.state) {
    tracker.observe(agent, taskId, { ...common, state: facts.state, at: seen.at });
  }
}
