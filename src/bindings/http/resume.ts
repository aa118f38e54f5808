/**
 * Step 4b on HTTP (docs/fleet.md "Stream resume"): a stream call with `Last-Event-ID` answered
 * from the replay window as an SSE stream — the kept events after that id with their ids, then
 * the live ones — and never sent to the agent again. The refusals (beyond the window, the store
 * down) are src/resume/opening.ts's, answered in the caller's protocol by the pipeline's step 8.
 */
import { errorContextOf, sseErrorEvent } from '../../errors/json-answer.js';
import type { RoutedCall } from '../../pipeline/binding.js';
import type { ResumeRequest } from '../../resume/decision.js';
import { afterReplay, followWindow, type FollowEnd, type FollowSink, type ReplayFailure } from '../../resume/follow.js';
import { A2AError, sseA2AErrorEvent } from '../../errors/a2a-error.js';
import type { ReplayWindows, WindowEvent, WindowRead } from '../../resume/window.js';
import { eventIdLine } from '../../resume/event-id.js';
import { blankLengthOf, withFieldLine } from '../../codec/sse-frames.js';
import { openReplay } from '../../resume/opening.js';
import { SseKeepalive } from './sse-keepalive.js';
import type { HttpCall } from './http-call.js';

const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' };

/** Goes on with the agent's SubscribeToTask in the started answer; resolves false when it cannot. */
export type ContinueStream = (taskId: string) => Promise<boolean>;

export async function resumeHttpCall(
  routed: RoutedCall<HttpCall>,
  request: ResumeRequest,
  windows: ReplayWindows,
  continueStream: ContinueStream,
): Promise<void> {
  const { exchange } = routed;
  const { resume, first } = await openReplay(exchange, request, windows);
  const ended = await replay(routed, resume, windows, first);
  const next = await afterReplay(exchange, ended, routed.call.closed, continueStream, resume.taskId);
  if (next.continued) return; // the relay finished the exchange
  finishReplay(routed, ended, next.failure);
}

/** Writes the window's events (each with its id) as an SSE answer, until the stream ends or the client leaves. */
async function replay(
  routed: RoutedCall<HttpCall>,
  resume: Extract<ResumeRequest, { kind: 'window' }>,
  windows: ReplayWindows,
  first: WindowRead,
): Promise<FollowEnd> {
  const { call, exchange } = routed;
  const { res } = call;
  exchange.record.status = 200;
  res.writeHead(200, SSE_HEADERS);
  exchange.emit('onResponseStart', 200, { 'content-type': 'text/event-stream' });
  const keepalive = new SseKeepalive(res, exchange.record);
  const keepaliveMs = exchange.upstream.config.sse.keepalive;
  if (keepaliveMs > 0) keepalive.start(keepaliveMs);
  const gone = new Promise<void>((resolve) => call.onClose(resolve));
  const sink: FollowSink = {
    get closed() {
      return call.closed;
    },
    gone,
    write: (event) => writeEvent(routed, resume, keepalive, event, gone),
  };
  try {
    return await followWindow(windows, resume.key, resume.after, first, sink);
  } finally {
    keepalive.stop();
  }
}

function writeEvent(
  { call, exchange }: RoutedCall<HttpCall>,
  resume: Extract<ResumeRequest, { kind: 'window' }>,
  keepalive: SseKeepalive,
  event: WindowEvent,
  gone: Promise<void>,
): Promise<void> | void {
  const frame = { bytes: event.bytes, blankLength: blankLengthOf(event.bytes), hasData: true };
  const out = withFieldLine(frame, eventIdLine(resume.taskId, resume.stream, event.seq));
  exchange.record.bytesOut += out.length;
  exchange.emit('onResponseChunk', out);
  keepalive.refresh(out);
  if (call.res.write(out)) return;
  return Promise.race([new Promise<void>((resolve) => call.res.once('drain', resolve)), gone]);
}

/**
 * The replay is over. The agent's stream ended: so does this one. Cut, or read by nobody any more
 * (the grace read gave up, a gateway process died), or a hole: an error event in the caller's
 * protocol (wire-reference §1.1 / §1.2), after which the client follows the task with SubscribeToTask.
 */
function finishReplay(
  { call, exchange }: RoutedCall<HttpCall>,
  ended: FollowEnd,
  failure: ReplayFailure | undefined,
): void {
  const { res } = call;
  if (ended === 'client-gone') {
    exchange.fail('client-gone', new Error('client went away'));
  } else if (failure && !res.writableEnded) {
    exchange.fail('upstream-error', failure);
    const ctx = errorContextOf(exchange.request, call.req.headers);
    res.end(failure instanceof A2AError ? sseA2AErrorEvent(failure, ctx) : sseErrorEvent(failure, ctx));
  } else {
    res.end();
  }
  exchange.finish();
}
