/**
 * The gRPC messages the timeout rescue (src/rescue/, docs/ARCHITECTURE.md "Timeout rescue")
 * sends and answers, built from bytes without a generated codec: field numbers per
 * docs/proto/a2a-v1.0.0.proto and docs/proto/a2a-v0.3.0.proto. Pure; never throws (malformed
 * input gives `undefined`).
 */
import { BinaryReader, BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import type { ProtocolVersion } from '../operations.js';
import type { TaskState } from '../task-state.js';
import { eachField, messageField, tryDecode } from './proto-read.js';
import { readTask } from './response-message.js';

/** SendMessageRequest.configuration: 1.0 field 3, 0.3 field 2. */
const CONFIGURATION_FIELD: Readonly<Record<ProtocolVersion, number>> = { '1.0': 3, '0.3': 2 };

/**
 * The SendMessageRequest with 1.0 `return_immediately = true` (SendMessageConfiguration field 4)
 * or 0.3 `blocking = false` (field 4), wire-reference §5.1, §6.3. The configuration is rebuilt
 * as one field: every original configuration's bytes, then the flag (a later scalar wins, protobuf
 * encoding guide "Last One Wins"). Appending a second configuration would be enough for a
 * conformant parser, which merges embedded messages, but the ts-proto decoders of @a2a-js/sdk
 * replace the whole configuration instead, and would lose its push config and historyLength.
 * The other fields are copied as they are, in order.
 */
export function withReturnImmediately(
  sendMessageRequest: Uint8Array,
  version: ProtocolVersion,
): Uint8Array | undefined {
  return tryDecode(() => {
    const configNo = CONFIGURATION_FIELD[version];
    const others = new BinaryWriter();
    const configuration = new BinaryWriter();
    const r = new BinaryReader(sendMessageRequest);
    while (r.pos < r.len) {
      const start = r.pos;
      const [no, wt] = r.tag();
      if (no === configNo && wt === WireType.LengthDelimited) configuration.raw(r.bytes());
      else others.raw(sendMessageRequest.subarray(start, skipField(r, wt, no)));
    }
    // 1.0 return_immediately = true; 0.3 blocking = false, written although it is the default.
    configuration.tag(4, WireType.Varint).bool(version === '1.0');
    return others.tag(configNo, WireType.LengthDelimited).bytes(configuration.finish()).finish();
  });
}

function skipField(r: BinaryReader, wt: WireType, no: number): number {
  r.skip(wt, no);
  if (r.pos > r.len) throw new RangeError('message ends inside a field');
  return r.pos;
}

/**
 * GetTaskRequest: 1.0 id 2, history_length 3, and the draft 1.1 long-poll's current_generation 4
 * (int64; wire-reference §7.4); 0.3 name 1 (`tasks/{id}`), history_length 2.
 */
export function getTaskRequest(
  taskId: string,
  version: ProtocolVersion,
  historyLength?: number,
  currentGeneration?: number,
): Uint8Array {
  const w = new BinaryWriter();
  if (version === '1.0') {
    w.tag(2, WireType.LengthDelimited).string(taskId);
    if (historyLength !== undefined) w.tag(3, WireType.Varint).int32(historyLength);
    if (currentGeneration !== undefined) w.tag(4, WireType.Varint).int64(currentGeneration);
  } else {
    w.tag(1, WireType.LengthDelimited).string(`tasks/${taskId}`);
    if (historyLength !== undefined) w.tag(2, WireType.Varint).int32(historyLength);
  }
  return w.finish();
}

/** 1.0 SubscribeToTaskRequest id 2; 0.3 TaskSubscriptionRequest name 1 (`tasks/{id}`). */
export function subscribeToTaskRequest(taskId: string, version: ProtocolVersion): Uint8Array {
  const w = new BinaryWriter();
  if (version === '1.0') w.tag(2, WireType.LengthDelimited).string(taskId);
  else w.tag(1, WireType.LengthDelimited).string(`tasks/${taskId}`);
  return w.finish();
}

/**
 * SendMessageResponse with `task` (field 1 in both versions) = the Task as the agent sent it:
 * tag, length, the bytes unchanged.
 */
export function sendMessageResponseOfTask(taskBytes: Uint8Array, version: ProtocolVersion): Uint8Array {
  void version; // same field number in both protos; the parameter keeps the call sites explicit
  return new BinaryWriter().tag(1, WireType.LengthDelimited).bytes(taskBytes).finish();
}

export interface TaskSummary {
  readonly id: string | undefined;
  readonly contextId: string | undefined;
  readonly state: TaskState | undefined;
}

/**
 * The draft 1.1 `Task.generation` (int64 field 7, wire-reference §7.4) of a 1.0 answer: the Task
 * itself (GetTask) or SendMessageResponse.task (field 1). ≥ 1, else undefined (none kept).
 */
export function taskGeneration(message: Uint8Array, operation: 'SendMessage' | 'GetTask'): number | undefined {
  return tryDecode(() => {
    let task: Uint8Array | undefined = operation === 'GetTask' ? message : undefined;
    if (operation === 'SendMessage') eachField(message, (no, wt, r) => void (no === 1 && (task = messageField(wt, r))));
    let generation: number | undefined;
    if (task)
      eachField(task, (no, wt, r) => void (no === 7 && wt === WireType.Varint && (generation = Number(r.int64()))));
    return generation !== undefined && Number.isSafeInteger(generation) && generation > 0 ? generation : undefined;
  });
}

/** The Task's id, context and state (Task id 1, context_id 2, status 3 → state 1, both versions). */
export function taskSummary(taskBytes: Uint8Array, version: ProtocolVersion): TaskSummary | undefined {
  void version;
  const task = tryDecode(() => readTask(taskBytes));
  return task === undefined ? undefined : { id: task.taskId, contextId: task.contextId, state: task.state };
}
