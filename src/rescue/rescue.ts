/**
 * Timeout rescue (README "Timeout rescue"). A blocking SendMessage holds the HTTP request open
 * until the task is terminal or interrupted, with no time limit in the spec (wire-reference §5.1);
 * clients and load balancers give up first and never learn the task id (field notes item 1).
 * For agents with `timeoutRescue.enabled`, the gateway instead:
 *   1. sends it with returnImmediately (0.3: blocking false) — or as SendStreamingMessage,
 *   2. answers at once what needs no waiting (a Message, an error, a settled task), exactly as sent,
 *   3. else waits server-side (SubscribeToTask, or GetTask polls) until the task settles or the
 *      client's deadline minus the margin comes,
 *   4. fetches the Task with one GetTask (the client's historyLength) and answers it in the
 *      caller's own envelope: settled, or at the deadline the latest snapshot with its id.
 * The agent's task is never canceled, whatever happens to the client.
 */
import { performance } from 'node:perf_hooks';
import type { TaskState } from '../a2a/task-state.js';
import { SettleWatch } from './settle.js';
import { contentTypeFor } from '../a2a/content-type.js';
import type { Exchange } from '../exchange/exchange.js';
import type { RescueFacts, RescueStrategy } from '../exchange/record.js';
import type { ErrorContext } from '../proxy/error-response.js';
import { sendGatewayError } from '../proxy/error-response.js';
import { GatewayError, upstreamFailure } from '../transport/errors.js';
import type { AgentConfig } from '../config/schema.js';
import { callJson, followEvents, headersFor, type JsonReply } from './calls.js';
import {
  getTaskCall,
  nonBlockingBody,
  readGetTaskResponse,
  readSendResponse,
  readStreamEvent,
  streamingRequest,
  subscribeCall,
  withTask,
  type BlockingSend,
} from './wire.js';

export const RESCUE_HEADER = 'a2a-gateway-rescue';

export interface RescueRequest {
  readonly exchange: Exchange;
  readonly send: BlockingSend;
  /** The caller's headers as forwarded upstream (auth, version, extensions, traceparent). */
  readonly headers: string[];
  readonly policy: AgentConfig['timeoutRescue'];
  readonly strategy: RescueStrategy;
  /** Epoch ms at which the client must have its answer (deadline − margin). */
  readonly answerBy: number;
  readonly errorContext: ErrorContext;
}

/** Every observation of the task goes through here, in the order it was made. */
type See = (state: TaskState | undefined, timestamp?: string) => boolean;

class Stop extends Error {}

export async function runRescue(req: RescueRequest): Promise<void> {
  const { exchange, send } = req;
  const { res, upstream, record } = exchange;
  const facts: RescueFacts = { strategy: req.strategy, polls: 0 };
  record.rescue = facts;

  // Two reasons to stop waiting: the client left (stop everything), the deadline came (answer).
  const clientGone = new AbortController();
  const deadline = new AbortController();
  const onClose = () => {
    if (!res.writableFinished) clientGone.abort(new Stop('client gone'));
  };
  res.on('close', onClose);
  const deadlineTimer = setTimeout(() => deadline.abort(new Stop('deadline')), Math.max(0, req.answerBy - Date.now()));
  const waitSignal = AbortSignal.any([clientGone.signal, deadline.signal]);
  let settledAt: number | undefined;
  const watch = new SettleWatch(send.version, send.followUp);
  const see: See = (state, timestamp) => {
    if (settledAt === undefined && watch.observe(state, timestamp)) settledAt = performance.now();
    return settledAt !== undefined;
  };

  const reply = (status: number, headers: string[], body: Buffer, rescue?: 'settled' | 'deadline') => {
    if (clientGone.signal.aborted || res.headersSent) return;
    const out: string[] = [];
    for (let i = 0; i < headers.length; i += 2)
      if (headers[i]!.toLowerCase() !== 'content-length') out.push(headers[i]!, headers[i + 1]!);
    out.push('content-length', String(body.length));
    if (rescue) out.push(RESCUE_HEADER, rescue);
    const asObject: Record<string, string> = {};
    for (let i = 0; i < out.length; i += 2) asObject[out[i]!.toLowerCase()] = out[i + 1]!;
    record.status = status;
    record.bytesOut += body.length;
    exchange.emit('onResponseStart', status, asObject);
    exchange.emit('onResponseChunk', body);
    res.writeHead(status, out);
    res.end(body);
    if (settledAt !== undefined) facts.settleToAnswerMs = Math.round((performance.now() - settledAt) * 1000) / 1000;
  };
  const fail = (err: GatewayError) => {
    exchange.fail('upstream-error', err);
    if (!clientGone.signal.aborted) sendGatewayError(res, err, req.errorContext);
  };

  try {
    // 1. The send: non-blocking, or as a stream whose first event names the task.
    let envelope: { status: number; headers: string[]; doc: Record<string, unknown> };
    let taskId: string;
    let latest: Record<string, unknown> | undefined;
    if (req.strategy === 'stream') {
      const streamed = await sendStreaming(req, waitSignal, see);
      if (streamed.kind === 'reply') {
        // 2. No task to wait for: the agent's answer goes back as it came.
        facts.outcome = streamed.outcome;
        return reply(streamed.reply.status, streamed.reply.headers, streamed.reply.body);
      }
      if (streamed.kind === 'none')
        throw new GatewayError('UPSTREAM_INVALID', `agent "${upstream.name}" ended the stream without naming a task`, {
          agent: upstream.name,
        });
      ({ taskId, task: latest } = streamed);
      envelope = {
        status: 200,
        headers: ['content-type', contentTypeFor(send.binding, send.version)],
        doc: envelopeFor(send),
      };
    } else {
      const call = { method: 'POST' as const, path: send.path, body: nonBlockingBody(send) };
      let first: JsonReply;
      try {
        first = await callJson(upstream, call, headersFor(req.headers, call), waitSignal);
      } catch (err) {
        if (deadline.signal.aborted && !clientGone.signal.aborted) {
          // The agent ignored returnImmediately and is still working on the send.
          facts.outcome = 'agent-blocked';
          record.findings.push({
            rule: 'a2a.return-immediately-ignored',
            count: 1,
            detail: 'no answer to a returnImmediately send before the client deadline',
          });
          return fail(
            new GatewayError(
              'UPSTREAM_TIMEOUT',
              `agent "${upstream.name}" ignored returnImmediately and did not answer before the client's deadline; the task id is unknown`,
              { agent: upstream.name, cause: 'RETURN_IMMEDIATELY_IGNORED' },
            ),
          );
        }
        throw err;
      }
      const result = readSendResponse(send, first.doc);
      // 2. Nothing to wait for: the agent's own bytes go back untouched.
      if (result.kind !== 'task' || see(result.state, result.timestamp)) {
        facts.outcome = result.kind === 'message' ? 'message' : result.kind === 'task' ? 'settled' : 'error';
        if (result.kind === 'task') facts.taskId = result.taskId;
        return reply(first.status, first.headers, first.body);
      }
      ({ taskId, task: latest } = result);
      envelope = { status: first.status, headers: first.headers, doc: first.doc as Record<string, unknown> };
    }
    facts.taskId = taskId;

    // 3. Wait server-side: the subscription first (when chosen), polling for whatever is left.
    if (settledAt === undefined && !waitSignal.aborted && req.strategy === 'subscribe') {
      await waitBySubscription(req, taskId, waitSignal, see);
    }
    if (settledAt === undefined && !waitSignal.aborted) {
      const polled = await waitByPolling(req, taskId, waitSignal, facts, see);
      if (polled) latest = polled;
    }
    if (clientGone.signal.aborted) return;

    // 4. The agent's own Task, as GetTask returns it, in the caller's envelope.
    const getTask = getTaskCall(send, taskId);
    try {
      const fetched = await callJson(upstream, getTask, headersFor(req.headers, getTask), clientGone.signal);
      const task = readGetTaskResponse(send, fetched.doc);
      if (task.kind !== 'task' && !latest) facts.outcome = 'error';
      if (task.kind === 'task') {
        latest = task.task;
        see(task.state, task.timestamp);
      }
    } catch (err) {
      if (clientGone.signal.aborted) return;
      if (!latest) throw err; // nothing to answer with
    }
    if (!latest) {
      // Only a status event named the task and GetTask does not know it: the gateway does not
      // make a Task up (it answers with the agent's own), so it says what happened instead.
      throw new GatewayError(
        'UPSTREAM_INVALID',
        `agent "${upstream.name}" reported task ${taskId} but GetTask does not return it`,
        { agent: upstream.name, taskId },
      );
    }
    const outcome = settledAt !== undefined ? 'settled' : 'deadline';
    facts.outcome = outcome;
    reply(envelope.status, envelope.headers, withTask(send, envelope.doc, latest), outcome);
  } catch (err) {
    if (clientGone.signal.aborted) return;
    fail(upstreamFailure(err, upstream.name));
  } finally {
    clearTimeout(deadlineTimer);
    res.off('close', onClose);
    if (clientGone.signal.aborted) {
      facts.outcome = 'client-gone';
      exchange.fail('client-gone', new Error('client went away while the gateway waited for the task'));
    }
    exchange.finish();
  }
}

/** The SendMessage envelope for a task that arrived by stream (no plain response to reuse). */
function envelopeFor(send: BlockingSend): Record<string, unknown> {
  return send.binding === 'jsonrpc' ? { jsonrpc: '2.0', id: send.jsonrpcId, result: {} } : {};
}

type Streamed =
  | { kind: 'task'; taskId: string; task: Record<string, unknown> | undefined }
  | { kind: 'reply'; reply: JsonReply; outcome: 'message' | 'error' }
  | { kind: 'none' };

/**
 * Sends as SendStreamingMessage and follows the stream until the task settles or the wait ends.
 * A stream that turns out to carry a Message, or an error, is answered as the SendMessage
 * response the caller asked for: the same payload in the SendMessage envelope.
 */
async function sendStreaming(req: RescueRequest, signal: AbortSignal, see: See): Promise<Streamed> {
  const { send } = req;
  const { path, body } = streamingRequest(send);
  const call = { method: 'POST' as const, path, body };
  let found: Streamed = { kind: 'none' };
  try {
    const { notStream } = await followEvents(
      req.exchange.upstream,
      call,
      headersFor(req.headers, call, 'text/event-stream'),
      signal,
      (doc) => {
        const event = readStreamEvent(send, doc);
        if (found.kind === 'none' && (event.message || event.error)) {
          const payload = Buffer.from(JSON.stringify(doc));
          const status = event.error && send.binding === 'rest' ? restErrorStatus(doc) : 200;
          found = {
            kind: 'reply',
            outcome: event.message ? 'message' : 'error',
            reply: {
              status,
              headers: ['content-type', contentTypeFor(send.binding, send.version)],
              body: event.message ? messageEnvelope(send, doc) : payload,
              doc,
            },
          };
          return true;
        }
        if (found.kind === 'none' && event.taskId) found = { kind: 'task', taskId: event.taskId, task: event.task };
        return found.kind === 'task' && see(event.state, event.timestamp);
      },
    );
    if (notStream)
      found = {
        kind: 'reply',
        outcome: readSendResponse(send, notStream.doc).kind === 'message' ? 'message' : 'error',
        reply: notStream,
      };
  } catch (err) {
    if (!signal.aborted) throw err;
  }
  return found;
}

/** A stream's message event, re-wrapped as a SendMessage response (wire-reference §2.4, §6.3). */
function messageEnvelope(send: BlockingSend, eventDoc: unknown): Buffer {
  const doc = eventDoc as Record<string, unknown>;
  if (send.binding === 'jsonrpc') return Buffer.from(JSON.stringify({ ...doc, id: send.jsonrpcId }));
  return Buffer.from(JSON.stringify(doc));
}

function restErrorStatus(doc: unknown): number {
  const code = (doc as { error?: { code?: unknown } }).error?.code;
  return typeof code === 'number' && code >= 400 && code < 600 ? code : 500;
}

/** SubscribeToTask until a settled state arrives or the stream ends. */
async function waitBySubscription(req: RescueRequest, taskId: string, signal: AbortSignal, see: See): Promise<void> {
  const follow = async (verb: 'GET' | 'POST') => {
    const call = subscribeCall(req.send, taskId, verb);
    return followEvents(
      req.exchange.upstream,
      call,
      headersFor(req.headers, call, 'text/event-stream'),
      signal,
      (doc) => {
        const event = readStreamEvent(req.send, doc);
        return see(event.state, event.timestamp);
      },
    );
  };
  try {
    const { status } = await follow('POST');
    // REST subscribe: the proto says GET, the spec POST (wire-reference §7.1 #2): try the other.
    if (req.send.binding === 'rest' && (status === 404 || status === 405)) await follow('GET');
  } catch {
    // A broken subscription falls back to polling (the caller polls whatever is left).
  }
}

/** GetTask with growing intervals (and jitter) until the task settles or the wait ends; returns
 * the last task seen. */
async function waitByPolling(
  req: RescueRequest,
  taskId: string,
  signal: AbortSignal,
  facts: RescueFacts,
  see: See,
): Promise<Record<string, unknown> | undefined> {
  let interval = req.policy.pollInitial;
  let last: Record<string, unknown> | undefined;
  while (!signal.aborted) {
    const jittered = interval * (0.8 + Math.random() * 0.4);
    const slept = await sleep(jittered, signal);
    if (!slept) break;
    const call = getTaskCall(req.send, taskId);
    facts.polls++;
    try {
      const reply = await callJson(req.exchange.upstream, call, headersFor(req.headers, call), signal);
      const task = readGetTaskResponse(req.send, reply.doc);
      if (task.kind === 'task') {
        last = task.task;
        if (see(task.state, task.timestamp)) return last;
      }
    } catch {
      if (signal.aborted) break;
    }
    interval = Math.min(interval * 1.5, req.policy.pollMax);
  }
  return last;
}

/** Resolves true after `ms`, or false as soon as `signal` aborts (the timer is cleared). */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
