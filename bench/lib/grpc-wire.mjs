// The gRPC messages of scenarios 8 and 9, encoded once with @bufbuild/protobuf's BinaryWriter
// by field number (docs/proto/a2a-v1.0.0.proto), and the gRPC length-prefixed framing
// (1-byte compressed flag + 4-byte big-endian length + message). Shared by the gRPC upstream
// (bench/servers/grpc-upstream.mjs) and the load client (lib/grpc-client.mjs).
import { BinaryWriter } from '@bufbuild/protobuf/wire';

export const SEND_MESSAGE = '/lf.a2a.v1.A2AService/SendMessage';
export const SEND_STREAMING_MESSAGE = '/lf.a2a.v1.A2AService/SendStreamingMessage';
/** The request metadata that asks the upstream for a stream of N messages. */
export const EVENTS_HEADER = 'x-bench-events';
/** The size the middle messages of a stream are padded to. */
export const EVENT_BYTES = 512;

const TASK_ID = '44613eb1-1bae-47be-9266-fc61120b565f';
const CONTEXT_ID = 'eb787aca-97f9-4b1e-85cf-4a93124511c2';
const ROLE_USER = 1;
const ROLE_AGENT = 2;
const SUBMITTED = 1;
const WORKING = 2;
const COMPLETED = 3;

/** Part { text 1, media_type 7 }, after its field's tag. */
function part(w, text) {
  w.fork();
  w.tag(1, 2).string(text);
  w.tag(7, 2).string('text/plain');
  w.join();
}

/** Message { message_id 1, context_id 2, task_id 3, role 4, parts 5 }, inside its field's fork. */
function message(w, { id, text, role, taskId }) {
  w.tag(1, 2).string(id);
  w.tag(2, 2).string(CONTEXT_ID);
  if (taskId) w.tag(3, 2).string(taskId);
  w.tag(4, 0).int32(role);
  w.tag(5, 2);
  part(w, text);
}

/** TaskStatus { state 1, message 2 }, written as field `no` of the current message. */
function status(w, no, state, text) {
  w.tag(no, 2).fork().tag(1, 0).int32(state);
  if (text !== undefined) {
    w.tag(2, 2).fork();
    message(w, { id: '6117a51c-73de-4c4d-92f7-147e86da31a8', text, role: ROLE_AGENT, taskId: TASK_ID });
    w.join();
  }
  w.join();
}

/** SendMessageRequest { message 2 }: the question of the JSON scenarios, over gRPC. */
export function sendMessageRequest(text = 'what is 6x7?') {
  const w = new BinaryWriter();
  w.tag(2, 2).fork();
  message(w, { id: '9229e770-767c-417b-a0b0-f0741243c589', text, role: ROLE_USER });
  w.join();
  return w.finish();
}

/** SendMessageResponse { message 2 }: a direct agent Message, as in scenario 1. */
export function sendMessageResponse() {
  const w = new BinaryWriter();
  w.tag(2, 2).fork();
  message(w, { id: 'c1d3a8f0-62b6-4f4e-9bd3-0b8e1f2a7d55', text: '6 x 7 = 42', role: ROLE_AGENT, taskId: '' });
  w.join();
  return w.finish();
}

const pad = (n) => 'x'.repeat(Math.max(0, n));

/**
 * The StreamResponse messages of one stream of `events` (≥ 2): a Task (task 1, SUBMITTED),
 * then status updates (status_update 3, WORKING with a padded agent message) and artifact
 * updates (artifact_update 4, a padded text part) in turn, each ~`eventBytes`, then a final
 * status update (COMPLETED). Returns {first, mids: [status, artifact], last}.
 */
export function streamResponses(eventBytes = EVENT_BYTES) {
  const task = new BinaryWriter();
  task.tag(1, 2).fork().tag(1, 2).string(TASK_ID).tag(2, 2).string(CONTEXT_ID);
  status(task, 3, SUBMITTED);
  task.join();
  const update = (state, text) => {
    const w = new BinaryWriter();
    w.tag(3, 2).fork().tag(1, 2).string(TASK_ID).tag(2, 2).string(CONTEXT_ID);
    status(w, 3, state, text);
    w.join();
    return w.finish();
  };
  const artifact = (text) => {
    const w = new BinaryWriter();
    w.tag(4, 2).fork().tag(1, 2).string(TASK_ID).tag(2, 2).string(CONTEXT_ID);
    w.tag(3, 2).fork().tag(1, 2).string('bench-artifact').tag(2, 2).string('bench.txt').tag(4, 2);
    part(w, text);
    w.join();
    w.tag(4, 0).bool(true);
    w.join();
    return w.finish();
  };
  // Aim the padded events at eventBytes (the fixed part of each is ~230 B).
  const statusFixed = update(WORKING, '').length;
  const artifactFixed = artifact('').length;
  return {
    first: task.finish(),
    mids: [update(WORKING, pad(eventBytes - statusFixed - 3)), artifact(pad(eventBytes - artifactFixed - 3))],
    last: update(COMPLETED, 'done'),
  };
}

/** One gRPC length-prefixed message, uncompressed. */
export function frame(message) {
  const out = Buffer.allocUnsafe(5 + message.length);
  out[0] = 0;
  out.writeUInt32BE(message.length, 1);
  out.set(message, 5);
  return out;
}

/**
 * An incremental reader of length-prefixed messages: `push(chunk)` calls `onMessage(bytes)` for
 * each whole message (copied only when it spans chunks); `pending` is the bytes of a partial one.
 */
export function frameReader(onMessage) {
  let held = null;
  return {
    push(chunk) {
      let buf = held ? Buffer.concat([held, chunk]) : chunk;
      held = null;
      let at = 0;
      while (buf.length - at >= 5) {
        const len = buf.readUInt32BE(at + 1);
        if (buf.length - at - 5 < len) break;
        onMessage(buf.subarray(at + 5, at + 5 + len), buf[at] !== 0);
        at += 5 + len;
      }
      if (at < buf.length) held = Buffer.from(buf.subarray(at));
    },
    get pending() {
      return held ? held.length : 0;
    },
  };
}
