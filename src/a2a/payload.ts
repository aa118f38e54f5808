/**
 * Reads A2A payloads — Task, Message, status and artifact update events, errors — out of JSON
 * fields, in every wire shape the gateway meets:
 *  - 1.0 (ProtoJSON): member-key oneofs `{"task":…}` / `{"message":…}` / `{"statusUpdate":…}` /
 *    `{"artifactUpdate":…}`, bare Task for GetTask/CancelTask (wire-reference §2.3, §2.4, §1.2);
 *  - 0.3 JSON-RPC: bare objects told apart by `kind` (`task`, `message`, `status-update`,
 *    `artifact-update`), lowercase states, `final` (wire-reference §6.3);
 *  - 0.3 REST (proto JSON): member keys like 1.0 plus `msg`, message `content` instead of
 *    `parts`, `TASK_STATE_CANCELLED`, `final` (wire-reference §6.4).
 * Errors: JSON-RPC `error` (§9.5), REST `{"error":{…,"details":[ErrorInfo]}}` (§11.6), and the
 * `{"code":-32001,"message":…}` bodies of a2a-js 0.3 REST (capture `v03--rest-get-unknown-task.http`).
 */
import { joinPath } from '../codec/json-fields.js';
import { bool, countOf, firstOf, isObject, isString, num, str, type Json } from '../codec/json-value.js';
import type { JsonBinding, ProtocolVersion } from './operations.js';
import { normaliseTaskState, type TaskState } from './task-state.js';

export type PayloadKind = 'task' | 'message' | 'statusUpdate' | 'artifactUpdate';

export interface Payload {
  /** `undefined`: none of the known payloads. */
  readonly kind: PayloadKind | undefined;
  /** More than one member key of the oneof is set (e.g. both `task` and `message`). */
  readonly ambiguous: boolean;
  readonly taskId?: string;
  readonly contextId?: string;
  readonly messageId?: string;
  readonly state?: TaskState;
  /** `status.timestamp` as the agent wrote it (§4.1.2, ISO 8601), for a Task or a status update. */
  readonly stateTimestamp?: string;
  readonly artifactCount?: number;
  readonly historyCount?: number;
  /** 0.3 `TaskStatusUpdateEvent.final`. */
  readonly final?: boolean;
  /** Which version's wire shape the payload shows, when it shows one. */
  readonly shape?: ProtocolVersion;
}

export interface ErrorFacts {
  /** JSON-RPC error code (also the code of a2a-js 0.3 REST error bodies). */
  readonly code?: number;
  /** `google.rpc.ErrorInfo.reason` (REST `details`, JSON-RPC 1.0 `data`). */
  readonly reason?: string;
  /** REST Google-style `error.status`, e.g. `FAILED_PRECONDITION`. */
  readonly status?: string;
  readonly httpStatus: number;
  readonly message?: string;
  /** gRPC status code of the `grpc-status` trailer (§10.6); `status` then holds its name. */
  readonly grpcStatus?: number;
}

/** Member keys of SendMessageResponse / StreamResponse and what each holds; `msg` is the 0.3 proto name. */
const MEMBERS: ReadonlyArray<readonly [key: string, kind: PayloadKind]> = [
  ['task', 'task'],
  ['message', 'message'],
  ['msg', 'message'],
  ['statusUpdate', 'statusUpdate'],
  ['artifactUpdate', 'artifactUpdate'],
];
const MEMBER_KEYS = MEMBERS.map(([key]) => key);

const KIND_VALUES: ReadonlyMap<string, PayloadKind> = new Map([
  ['task', 'task'],
  ['message', 'message'],
  ['status-update', 'statusUpdate'],
  ['artifact-update', 'artifactUpdate'],
]);

const FIELDS_OF_ANY_PAYLOAD = [
  'kind',
  'id',
  'taskId',
  'contextId',
  'messageId',
  'role',
  'parts',
  'content',
  'final',
  'status',
  'status.state',
  'status.timestamp',
  'status.message.kind',
  'status.message.parts',
  'status.message.content',
  'artifacts',
  'history',
  'history.*.kind',
  'history.*.parts',
  'history.*.content',
  'artifact.parts.*.kind',
];

const ERROR_FIELDS = [
  'error',
  'error.code',
  'error.message',
  'error.status',
  'error.data.*.reason',
  'error.data.reason',
  'error.details.*.reason',
  'code',
  'message',
  'title',
  'detail',
];

/** Every path `readPayload` and `readError` may ask for, under `root` ('' or 'result'). */
export function payloadPaths(root: string): string[] {
  const bases = [root, ...MEMBER_KEYS.map((key) => joinPath(root, key))];
  return [...bases, ...bases.flatMap((base) => FIELDS_OF_ANY_PAYLOAD.map((f) => joinPath(base, f)))];
}

export const ERROR_PATHS = ERROR_FIELDS;

/** Where a payload sits: the body itself (REST, 0.3 bare objects) or JSON-RPC `result`. */
export type PayloadRoot = '' | 'result';

// `*` steps of the paths above (module constants: no closure per read).
const kindOf = (element: Json): unknown => element?.kind;
const partsOf = (element: Json): unknown => element?.parts;
const contentOf = (element: Json): unknown => element?.content;
const reasonOf = (element: Json): unknown => element?.reason;

/**
 * Finds the payload at `root` of `doc`: a member key, a `kind` discriminator, or a bare Task.
 * `binding` matters for shape evidence only (1.0 JSON-RPC wraps; 0.3 JSON-RPC does not).
 */
export function readPayload(doc: unknown, root: PayloadRoot, binding: JsonBinding): Payload {
  const at = root === '' ? (doc as Json) : (doc as Json)?.result;
  const member = memberPayload(at, binding);
  if (member !== undefined) return member;
  const kindValue = str(at?.kind);
  const byKind = kindValue === undefined ? undefined : KIND_VALUES.get(kindValue);
  if (byKind !== undefined) return describe(at, byKind, false, false, false, binding);
  if (isString(at?.id) && isObject(at?.status)) return describe(at, 'task', false, false, false, binding);
  return { kind: undefined, ambiguous: false };
}

/**
 * The payload named by a member key (MEMBERS): the first one present in that order names it,
 * more than one makes it ambiguous. Named loads, not `at?.[key]` over MEMBERS: this runs for
 * every stream event, and those keyed loads were megamorphic.
 */
function memberPayload(at: Json, binding: JsonBinding): Payload | undefined {
  const members = [at?.task, at?.message, at?.msg, at?.statusUpdate, at?.artifactUpdate];
  let first = -1;
  let count = 0;
  for (let i = 0; i < members.length; i++) {
    if (!isObject(members[i])) continue;
    count++;
    if (first < 0) first = i;
  }
  if (first < 0) return undefined;
  const [key, kind] = MEMBERS[first] as readonly [string, PayloadKind];
  return describe(members[first], kind, count > 1, true, key === 'msg', binding);
}

function describe(
  p: Json,
  kind: PayloadKind,
  ambiguous: boolean,
  wrapped: boolean,
  legacyMember: boolean,
  binding: JsonBinding,
): Payload {
  const status = p?.status;
  const stateValue = status?.state;
  const stateRaw = str(stateValue);
  const hasStatus = kind === 'task' || kind === 'statusUpdate';
  // One object shape for every kind (fields that do not apply stay undefined): cheaper for V8
  // than spreading per kind, and these run for every stream event.
  return {
    kind,
    ambiguous,
    taskId: str(kind === 'task' ? p?.id : p?.taskId),
    contextId: str(p?.contextId),
    messageId: kind === 'message' ? str(p?.messageId) : undefined,
    state: hasStatus ? normaliseTaskState(stateRaw ?? num(stateValue)) : undefined,
    stateTimestamp: hasStatus ? str(status?.timestamp) : undefined,
    artifactCount: kind === 'task' ? countOf(p?.artifacts) : undefined,
    historyCount: kind === 'task' ? countOf(p?.history) : undefined,
    final: kind === 'statusUpdate' ? bool(p?.final) : undefined,
    shape: shapeOf(p, status, kind, stateRaw, wrapped, legacyMember, binding),
  };
}

/** Version evidence of one payload (wire-reference §6.3 vs §6.4 vs §2); `undefined` when it shows none. */
function shapeOf(
  p: Json,
  status: Json,
  kind: PayloadKind,
  stateRaw: string | undefined,
  wrapped: boolean,
  legacyMember: boolean,
  binding: JsonBinding,
): ProtocolVersion | undefined {
  if (legacyMember) return '0.3';
  const isMessage = kind === 'message';
  const statusMessage = status?.message;
  const history = p?.history;
  const kindKeys =
    p?.kind !== undefined ||
    statusMessage?.kind !== undefined ||
    firstOf(history, kindOf) !== undefined ||
    firstOf(p?.artifact?.parts, kindOf) !== undefined;
  if (kindKeys) return '0.3';
  const messageContent = isMessage
    ? p?.content !== undefined
    : statusMessage?.content !== undefined || firstOf(history, contentOf) !== undefined;
  if (messageContent) return '0.3';
  const legacyState =
    stateRaw !== undefined && (stateRaw === 'TASK_STATE_CANCELLED' || !stateRaw.startsWith('TASK_STATE_'));
  if (legacyState || p?.final !== undefined) return '0.3';
  const messageParts = isMessage
    ? p?.parts !== undefined
    : statusMessage?.parts !== undefined || firstOf(history, partsOf) !== undefined;
  // 0.3 REST also spells states TASK_STATE_*, so a state name is 1.0 evidence only on JSON-RPC.
  const jsonRpc10 = binding === 'jsonrpc' && (wrapped || stateRaw !== undefined);
  return messageParts || jsonRpc10 ? '1.0' : undefined;
}

/** Error carried by a JSON body, or `undefined` when the body is no error. */
export function readError(doc: unknown, httpStatus: number, binding: JsonBinding): ErrorFacts | undefined {
  const body = doc as Json;
  const error = body?.error;
  if (isObject(error)) {
    const data = error?.data;
    return {
      // A REST `error.code` only mirrors the HTTP status (§11.6); JSON-RPC codes are the A2A ones.
      code: binding === 'jsonrpc' ? num(error?.code) : undefined,
      reason: str(firstOf(data, reasonOf)) ?? str(data?.reason) ?? str(firstOf(error?.details, reasonOf)),
      status: str(error?.status),
      httpStatus,
      message: str(error?.message),
    };
  }
  const code = num(body?.code);
  if (code !== undefined && isString(body?.message)) {
    return { code, httpStatus, message: str(body?.message) };
  }
  if (httpStatus >= 400) {
    return { httpStatus, message: str(body?.detail) ?? str(body?.title) };
  }
  return undefined;
}
