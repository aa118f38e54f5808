/**
 * A2A payloads out of gRPC response messages, by field number, as the `Payload` the JSON readers
 * make (src/a2a/payload.ts), so the checks and the stream machine serve both. Field numbers are
 * the same in docs/proto/a2a-v1.0.0.proto and docs/proto/a2a-v0.3.0.proto for what is read here
 * (0.3 names differ: `msg`, `TASK_STATE_CANCELLED`, TaskStatus `update`). Throws on malformed
 * bytes (callers use `tryDecode`).
 */
import type { Payload, PayloadKind } from '../payload.js';
import { normaliseTaskState } from '../task-state.js';
import { eachField, messageField, stringField, varintField, WireType } from './proto-read.js';

interface Draft {
  taskId?: string;
  contextId?: string;
  messageId?: string;
  state?: number;
  artifactCount?: number;
  historyCount?: number;
  final?: boolean;
  legacy?: boolean;
}

/** Task: id 1, context_id 2, status 3 (TaskStatus: state 1), artifacts 4, history 5. */
export function readTask(bytes: Uint8Array): Payload {
  const d: Draft = {};
  let artifacts = 0;
  let history = 0;
  eachField(bytes, (no, wt, r) => {
    if (no === 1) d.taskId = stringField(wt, r);
    else if (no === 2) d.contextId = stringField(wt, r);
    else if (no === 3) d.state = stateOf(messageField(wt, r));
    else if (no === 4 && wt === WireType.LengthDelimited) artifacts += skipOne(r, wt);
    else if (no === 5 && wt === WireType.LengthDelimited) history += skipOne(r, wt);
  });
  d.artifactCount = artifacts;
  d.historyCount = history;
  return payloadOf('task', d);
}

/** Message: message_id 1, context_id 2, task_id 3. */
export function readMessage(bytes: Uint8Array): Payload {
  const d: Draft = {};
  eachField(bytes, (no, wt, r) => {
    if (no === 1) d.messageId = stringField(wt, r);
    else if (no === 2) d.contextId = stringField(wt, r);
    else if (no === 3) d.taskId = stringField(wt, r);
  });
  return payloadOf('message', d);
}

/**
 * TaskStatusUpdateEvent: task_id 1, context_id 2, status 3; field 4 is 0.3 `final` (bool) but
 * 1.0 `metadata` (Struct), so a varint there is 0.3 evidence.
 */
function readStatusUpdate(bytes: Uint8Array): Payload {
  const d: Draft = {};
  eachField(bytes, (no, wt, r) => {
    if (no === 1) d.taskId = stringField(wt, r);
    else if (no === 2) d.contextId = stringField(wt, r);
    else if (no === 3) d.state = stateOf(messageField(wt, r));
    else if (no === 4 && wt === WireType.Varint) {
      d.final = r.bool();
      d.legacy = true;
    }
  });
  return payloadOf('statusUpdate', d);
}

/** TaskArtifactUpdateEvent: task_id 1, context_id 2. */
function readArtifactUpdate(bytes: Uint8Array): Payload {
  const d: Draft = {};
  eachField(bytes, (no, wt, r) => {
    if (no === 1) d.taskId = stringField(wt, r);
    else if (no === 2) d.contextId = stringField(wt, r);
  });
  return payloadOf('artifactUpdate', d);
}

const READERS: Readonly<Record<number, readonly [PayloadKind, (bytes: Uint8Array) => Payload]>> = {
  1: ['task', readTask],
  2: ['message', readMessage],
  3: ['statusUpdate', readStatusUpdate],
  4: ['artifactUpdate', readArtifactUpdate],
};

/**
 * SendMessageResponse (oneof task 1 | message 2; 0.3 `msg` 2) or StreamResponse (also
 * status_update 3, artifact_update 4). A oneof seen twice on the wire keeps the last member
 * (protobuf encoding guide); two different members make it `ambiguous`.
 */
export function readOneofPayload(bytes: Uint8Array, stream: boolean): Payload {
  let found: Payload | undefined;
  const kinds = new Set<PayloadKind>();
  eachField(bytes, (no, wt, r) => {
    const reader = READERS[no];
    if (reader === undefined || (!stream && no > 2)) return;
    const member = messageField(wt, r);
    if (member === undefined) return;
    kinds.add(reader[0]);
    found = reader[1](member);
  });
  if (found === undefined) return { kind: undefined, ambiguous: false };
  return kinds.size > 1 ? { ...found, ambiguous: true } : found;
}

/** TaskStatus.state (1), 0 (UNSPECIFIED) when the status carries none. */
function stateOf(status: Uint8Array | undefined): number | undefined {
  if (status === undefined) return undefined;
  let state = 0;
  eachField(status, (no, wt, r) => {
    if (no === 1) state = varintField(wt, r) ?? state;
  });
  return state;
}

function skipOne(r: { skip(wt: WireType): Uint8Array }, wt: WireType): number {
  r.skip(wt);
  return 1;
}

/** proto3 strings are empty, not absent: an empty id names nothing. */
function payloadOf(kind: PayloadKind, d: Draft): Payload {
  return {
    kind,
    ambiguous: false,
    taskId: d.taskId || undefined,
    contextId: d.contextId || undefined,
    messageId: d.messageId || undefined,
    state: d.state === undefined ? undefined : (normaliseTaskState(d.state) ?? 'TASK_STATE_UNSPECIFIED'),
    artifactCount: d.artifactCount,
    historyCount: d.historyCount,
    final: kind === 'statusUpdate' ? d.final : undefined,
    shape: d.legacy === true ? '0.3' : undefined,
  };
}
