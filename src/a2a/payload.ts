/**
 * Reads A2A payloads — Task, Message, status and artifact update events, errors — out of JSON
 * fields, in every wire shape the gateway meets:
 *  - 1.0 (ProtoJSON): member-key oneofs `{"task":…}` / `{"message":…}` / `{"statusUpdate":…}` /
 *    `{"artifactUpdate":…}`, bare Task for GetTask/CancelTask (wire-ref §2.3, §2.4, §1.2);
 *  - 0.3 JSON-RPC: bare objects told apart by `kind` (`task`, `message`, `status-update`,
 *    `artifact-update`), lowercase states, `final` (wire-ref §6.3);
 *  - 0.3 REST (proto JSON): member keys like 1.0 plus `msg`, message `content` instead of
 *    `parts`, `TASK_STATE_CANCELLED`, `final` (wire-ref §6.4).
 * Errors: JSON-RPC `error` (§9.5), REST `{"error":{…,"details":[ErrorInfo]}}` (§11.6), and the
 * `{"code":-32001,"message":…}` bodies of a2a-js 0.3 REST (capture `v03--rest-get-unknown-task.http`).
 */
import {
  booleanAt,
  countAt,
  fieldPath,
  has,
  isObjectAt,
  joinPath,
  numberAt,
  stringAt,
  typeAt,
  type FieldPath,
  type JsonFields,
} from '../codec/json-fields.js';
import type { ProtocolVersion } from './operations.js';
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
}

/** Member keys of SendMessageResponse / StreamResponse; `msg` is the 0.3 proto name. */
const MEMBER_KEYS = [
  ['task', 'task'],
  ['message', 'message'],
  ['msg', 'message'],
  ['statusUpdate', 'statusUpdate'],
  ['artifactUpdate', 'artifactUpdate'],
] as const;

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
  const bases = [root, ...MEMBER_KEYS.map(([key]) => joinPath(root, key))];
  return [...bases, ...bases.flatMap((base) => FIELDS_OF_ANY_PAYLOAD.map((f) => joinPath(base, f)))];
}

export const ERROR_PATHS = ERROR_FIELDS;

/** Where a payload sits: the body itself (REST, 0.3 bare objects) or JSON-RPC `result`. */
export type PayloadRoot = '' | 'result';

/** The compiled paths of the fields of one payload object at `base`. */
function payloadFieldsAt(base: string) {
  const p = (path: string) => fieldPath(joinPath(base, path));
  return {
    kind: p('kind'),
    id: p('id'),
    taskId: p('taskId'),
    contextId: p('contextId'),
    messageId: p('messageId'),
    parts: p('parts'),
    content: p('content'),
    final: p('final'),
    status: p('status'),
    statusState: p('status.state'),
    statusMessageKind: p('status.message.kind'),
    statusMessageParts: p('status.message.parts'),
    statusMessageContent: p('status.message.content'),
    artifacts: p('artifacts'),
    history: p('history'),
    historyKind: p('history.*.kind'),
    historyParts: p('history.*.parts'),
    historyContent: p('history.*.content'),
    artifactPartsKind: p('artifact.parts.*.kind'),
  };
}

type PayloadFields = ReturnType<typeof payloadFieldsAt>;

interface Member {
  readonly path: FieldPath;
  readonly kind: PayloadKind;
  readonly legacy: boolean;
  readonly fields: PayloadFields;
}

function rootTable(root: PayloadRoot) {
  return {
    bare: payloadFieldsAt(root),
    /** The SendMessageResponse oneof (§9.4.1, §11.4): `task`, `message`, 0.3 proto `msg`. */
    sendResultKeys: ['task', 'message', 'msg'].map((key) => fieldPath(joinPath(root, key))),
    members: MEMBER_KEYS.map(
      ([key, kind]): Member => ({ path: fieldPath(joinPath(root, key)), kind, legacy: key === 'msg', fields: payloadFieldsAt(joinPath(root, key)) }),
    ),
  };
}

/** Every path the payload readers use, compiled once (`pathsIn` of these must be in the scan plans). */
export const PAYLOAD_TABLES = { '': rootTable(''), result: rootTable('result') } as const;

/**
 * Finds the payload at `root`: a member key, a `kind` discriminator, or a bare Task.
 * `binding` matters for shape evidence only (1.0 JSON-RPC wraps; 0.3 JSON-RPC does not).
 */
export function readPayload(fields: JsonFields, root: PayloadRoot, binding: 'jsonrpc' | 'rest'): Payload {
  const table = PAYLOAD_TABLES[root];
  let first: Member | undefined;
  let members = 0;
  for (const member of table.members) {
    if (!isObjectAt(fields, member.path)) continue;
    first ??= member;
    members++;
  }
  if (first !== undefined) return describe(fields, first.fields, first.kind, members > 1, true, first.legacy, binding);
  const bare = table.bare;
  const kindValue = stringAt(fields, bare.kind);
  const byKind = kindValue === undefined ? undefined : KIND_VALUES.get(kindValue);
  if (byKind !== undefined) return describe(fields, bare, byKind, false, false, false, binding);
  if (typeAt(fields, bare.id) === 'string' && isObjectAt(fields, bare.status)) {
    return describe(fields, bare, 'task', false, false, false, binding);
  }
  return { kind: undefined, ambiguous: false };
}

function describe(
  fields: JsonFields,
  at: PayloadFields,
  kind: PayloadKind,
  ambiguous: boolean,
  wrapped: boolean,
  legacyMember: boolean,
  binding: 'jsonrpc' | 'rest',
): Payload {
  const stateRaw = stringAt(fields, at.statusState);
  const hasStatus = kind === 'task' || kind === 'statusUpdate';
  // One object shape for every kind (fields that do not apply stay undefined): cheaper for V8
  // than spreading per kind, and these run for every stream event.
  return {
    kind,
    ambiguous,
    taskId: stringAt(fields, kind === 'task' ? at.id : at.taskId),
    contextId: stringAt(fields, at.contextId),
    messageId: kind === 'message' ? stringAt(fields, at.messageId) : undefined,
    state: hasStatus ? normaliseTaskState(stateRaw ?? numberAt(fields, at.statusState)) : undefined,
    artifactCount: kind === 'task' ? countAt(fields, at.artifacts) : undefined,
    historyCount: kind === 'task' ? countAt(fields, at.history) : undefined,
    final: kind === 'statusUpdate' ? booleanAt(fields, at.final) : undefined,
    shape: shapeOf(fields, at, kind, stateRaw, wrapped, legacyMember, binding),
  };
}

/** Version evidence of one payload (wire-ref §6.3 vs §6.4 vs §2); `undefined` when it shows none. */
function shapeOf(
  fields: JsonFields,
  at: PayloadFields,
  kind: PayloadKind,
  stateRaw: string | undefined,
  wrapped: boolean,
  legacyMember: boolean,
  binding: 'jsonrpc' | 'rest',
): ProtocolVersion | undefined {
  const isMessage = kind === 'message';
  if (legacyMember) return '0.3';
  // Same evidence, same order as ever; each test is a few property reads.
  if (has(fields, at.kind) || has(fields, at.statusMessageKind) || has(fields, at.historyKind) || has(fields, at.artifactPartsKind)) return '0.3';
  if (isMessage ? has(fields, at.content) : has(fields, at.statusMessageContent) || has(fields, at.historyContent)) return '0.3';
  if (stateRaw !== undefined && (stateRaw === 'TASK_STATE_CANCELLED' || !stateRaw.startsWith('TASK_STATE_'))) return '0.3';
  if (has(fields, at.final)) return '0.3';
  const messageParts = isMessage ? has(fields, at.parts) : has(fields, at.statusMessageParts) || has(fields, at.historyParts);
  // 0.3 REST also spells states TASK_STATE_*, so a state name is 1.0 evidence only on JSON-RPC.
  const jsonRpc10 = binding === 'jsonrpc' && (wrapped || stateRaw !== undefined);
  return messageParts || jsonRpc10 ? '1.0' : undefined;
}

const ERR = {
  error: fieldPath('error'),
  code: fieldPath('error.code'),
  message: fieldPath('error.message'),
  status: fieldPath('error.status'),
  dataReason: fieldPath('error.data.*.reason'),
  dataObjectReason: fieldPath('error.data.reason'),
  detailsReason: fieldPath('error.details.*.reason'),
  bareCode: fieldPath('code'),
  bareMessage: fieldPath('message'),
  title: fieldPath('title'),
  detail: fieldPath('detail'),
} as const;

/** Every path `readError` uses (must be in the scan plans). */
export const ERROR_TABLE = ERR;

/** Error carried by a JSON body, or `undefined` when the body is no error. */
export function readError(fields: JsonFields, httpStatus: number, binding: 'jsonrpc' | 'rest'): ErrorFacts | undefined {
  if (isObjectAt(fields, ERR.error)) {
    return {
      // A REST `error.code` only mirrors the HTTP status (§11.6); JSON-RPC codes are the A2A ones.
      code: binding === 'jsonrpc' ? numberAt(fields, ERR.code) : undefined,
      reason: stringAt(fields, ERR.dataReason) ?? stringAt(fields, ERR.dataObjectReason) ?? stringAt(fields, ERR.detailsReason),
      status: stringAt(fields, ERR.status),
      httpStatus,
      message: stringAt(fields, ERR.message),
    };
  }
  const code = numberAt(fields, ERR.bareCode);
  if (code !== undefined && typeAt(fields, ERR.bareMessage) === 'string') {
    return { code, httpStatus, message: stringAt(fields, ERR.bareMessage) };
  }
  if (httpStatus >= 400) {
    return { httpStatus, message: stringAt(fields, ERR.detail) ?? stringAt(fields, ERR.title) };
  }
  return undefined;
}
