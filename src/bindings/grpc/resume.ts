/**
 * Step 4b on gRPC (docs/fleet.md "Stream resume"): a SendStreamingMessage or SubscribeToTask with
 * `last-event-id: {task}.{stream}.{n}` metadata is answered from the stream's replay window — the
 * kept messages after the n-th, their frames as the agent sent them, then the live ones
 * (src/resume/follow.ts) — and never sent to the agent again. The answer names the same stream
 * (`a2a-gateway-stream`), so a client cut again resumes with its total count. The agent's stream
 * ended with grpc-status 0: so does this one. Cut, or read by nobody any more (no gateway process
 * reads the agent's stream): the answer goes on with an upstream SubscribeToTask on the task's
 * replica (binding.ts `continueStream`), as on HTTP; if that cannot be made, or on a hole,
 * UNAVAILABLE / OUT_OF_RANGE, and the client follows the task with SubscribeToTask. The refusals (beyond the window: OUT_OF_RANGE
 * with RESUME_WINDOW_EXCEEDED; the store down) are src/resume/opening.ts's, answered as gRPC
 * statuses by the binding's `answerUnexpected`.
 */
import { grpcFailureOf, sendGrpcFailure } from '../../errors/grpc-answer.js';
import type { RoutedCall } from '../../pipeline/binding.js';
import type { ResumeRequest } from '../../resume/decision.js';
import { afterReplay, followWindow, type FollowEnd, type FollowSink, type ReplayFailure } from '../../resume/follow.js';
import type { ReplayWindows, WindowEvent } from '../../resume/window.js';
import { openReplay } from '../../resume/opening.js';
import { formatStreamName } from '../../resume/event-id.js';
import { STREAM_HEADER } from '../../resume/grpc-stream.js';
import type { GrpcClientCall } from './call.js';

/** What the SDK's gRPC agents answer with (grpc-js): the content type of every A2A stream. */
const HEADERS = { 'content-type': 'application/grpc+proto', 'grpc-encoding': 'identity' };

export async function resumeGrpcCall(
  routed: RoutedCall<GrpcClientCall>,
  request: ResumeRequest,
  windows: ReplayWindows,
  continueStream: (taskId: string) => Promise<boolean>,
): Promise<void> {
  const { call, exchange } = routed;
  const { resume, first } = await openReplay(exchange, request, windows);
  const headers = { ...HEADERS, [STREAM_HEADER]: formatStreamName(resume.taskId, resume.stream) };
  exchange.record.status = 200;
  call.res.writeHead(200, headers);
  exchange.emit('onResponseStart', 200, headers);
  const gone = new Promise<void>((resolve) => call.onClose(resolve));
  const sink: FollowSink = {
    get closed() {
      return call.closed;
    },
    gone,
    write: (event) => writeMessage(routed, event, gone),
  };
  const ended = await followWindow(windows, resume.key, resume.after, first, sink);
  const next = await afterReplay(exchange, ended, call.closed, continueStream, resume.taskId);
  if (next.continued) return; // the relay finished the exchange
  finishReplay(routed, ended, next.failure);
}

function writeMessage({ call, exchange }: RoutedCall<GrpcClientCall>, event: WindowEvent, gone: Promise<void>) {
  exchange.record.bytesOut += event.bytes.length;
  exchange.emit('onResponseChunk', event.bytes);
  if (call.res.write(event.bytes)) return;
  return Promise.race([new Promise<void>((resolve) => call.res.once('drain', resolve)), gone]);
}

/** The replay is over: OK when the agent's stream ended OK, else UNAVAILABLE (or the gap's OUT_OF_RANGE). */
function finishReplay(
  { call, exchange }: RoutedCall<GrpcClientCall>,
  ended: FollowEnd,
  failure: ReplayFailure | undefined,
): void {
  const { res } = call;
  if (ended === 'client-gone') {
    exchange.fail('client-gone', new Error('client went away'));
  } else if (ended === 'end') {
    const trailers = { 'grpc-status': '0' };
    exchange.responseTrailers = trailers;
    res.addTrailers(trailers);
    res.end();
  } else if (failure) {
    exchange.fail('upstream-error', failure);
    const trailers = sendGrpcFailure(res, grpcFailureOf(failure));
    if (trailers) exchange.responseTrailers = trailers;
  }
  exchange.finish();
}
