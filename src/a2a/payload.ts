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
import { booleanAt, countAt, joinPath, numberAt, stringAt, typeAt, type JsonFields } from '../codec/json-fields.js';
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

const KIND_VALUES: Readonly<Record<string, PayloadKind>> = {
  task: 'task',
  message: 'message',
  'status-update': 'statusUpdate',
  'artifact-update': 'artifactUpdate',
};

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

/**
 * Finds the payload at `root`: a member key, a `kind` discriminator, or a bare Task.
 * `binding` matters for shape evidence only (1.0 JSON-RPC wraps; 0.3 JSON-RPC does not).
 */
export function readPayload(fields: JsonFields, root: string, binding: 'jsonrpc' | 'rest'): Payload {
  const under = (path: string) => joinPath(root, path);
  const members = MEMBER_KEYS.filter(([key]) => typeAt(fields, under(key)) === 'object');
  if (members.length > 0) {
    const [key, kind] = members[0] as (typeof MEMBER_KEYS)[number];
    return describe(fields, under(key), kind, { ambiguous: members.length > 1, wrapped: true, legacyMember: key === 'msg', binding });
  }
  const kindValue = stringAt(fields, under('kind'));
  const byKind = kindValue === undefined ? undefined : KIND_VALUES[kindValue];
  if (byKind !== undefined) return describe(fields, root, byKind, { ambiguous: false, wrapped: false, legacyMember: false, binding });
  if (typeAt(fields, under('id')) === 'string' && typeAt(fields, under('status')) === 'object') {
    return describe(fields, root, 'task', { ambiguous: false, wrapped: false, legacyMember: false, binding });
  }
  return { kind: undefined, ambiguous: false };
}

interface Form {
  readonly ambiguous: boolean;
  readonly wrapped: boolean;
  readonly legacyMember: boolean;
  readonly binding: 'jsonrpc' | 'rest';
}

function describe(fields: JsonFields, at: string, kind: PayloadKind, form: Form): Payload {
  const p = (path: string) => joinPath(at, path);
  const stateRaw = stringAt(fields, p('status.state'));
  const hasStatus = kind === 'task' || kind === 'statusUpdate';
  // One object shape for every kind (fields that do not apply stay undefined): cheaper for V8
  // than spreading per kind, and these run for every stream event.
  return {
    kind,
    ambiguous: form.ambiguous,
    taskId: stringAt(fields, p(kind === 'task' ? 'id' : 'taskId')),
    contextId: stringAt(fields, p('contextId')),
    messageId: kind === 'message' ? stringAt(fields, p('messageId')) : undefined,
    state: hasStatus ? normaliseTaskState(stateRaw ?? numberAt(fields, p('status.state'))) : undefined,
    artifactCount: kind === 'task' ? countAt(fields, p('artifacts')) : undefined,
    historyCount: kind === 'task' ? countAt(fields, p('history')) : undefined,
    final: kind === 'statusUpdate' ? booleanAt(fields, p('final')) : undefined,
    shape: shapeOf(fields, p, kind, stateRaw, form),
  };
}

/** Version evidence of one payload (wire-ref §6.3 vs §6.4 vs §2); `undefined` when it shows none. */
function shapeOf(
  fields: JsonFields,
  p: (path: string) => string,
  kind: PayloadKind,
  stateRaw: string | undefined,
  form: Form,
): ProtocolVersion | undefined {
  const has = (path: string) => fields.get(p(path)) !== undefined;
  const messageContent = kind === 'message' ? has('content') : has('status.message.content') || has('history.*.content');
  const kindKeys =
    has('kind') || has('status.message.kind') || has('history.*.kind') || has('artifact.parts.*.kind');
  const legacyState = stateRaw !== undefined && (stateRaw === 'TASK_STATE_CANCELLED' || !stateRaw.startsWith('TASK_STATE_'));
  if (form.legacyMember || kindKeys || messageContent || legacyState || has('final')) return '0.3';
  const messageParts = kind === 'message' ? has('parts') : has('status.message.parts') || has('history.*.parts');
  // 0.3 REST also spells states TASK_STATE_*, so a state name is 1.0 evidence only on JSON-RPC.
  const jsonRpc10 = form.binding === 'jsonrpc' && (form.wrapped || stateRaw !== undefined);
  return messageParts || jsonRpc10 ? '1.0' : undefined;
}

/** Error carried by a JSON body, or `undefined` when the body is no error. */
export function readError(fields: JsonFields, httpStatus: number, binding: 'jsonrpc' | 'rest'): ErrorFacts | undefined {
  if (typeAt(fields, 'error') === 'object') {
    return {
      // A REST `error.code` only mirrors the HTTP status (§11.6); JSON-RPC codes are the A2A ones.
      code: binding === 'jsonrpc' ? numberAt(fields, 'error.code') : undefined,
      reason: stringAt(fields, 'error.data.*.reason') ?? stringAt(fields, 'error.data.reason') ?? stringAt(fields, 'error.details.*.reason'),
      status: stringAt(fields, 'error.status'),
      httpStatus,
      message: stringAt(fields, 'error.message'),
    };
  }
  const code = numberAt(fields, 'code');
  if (code !== undefined && typeAt(fields, 'message') === 'string') {
    return { code, httpStatus, message: stringAt(fields, 'message') };
  }
  if (httpStatus >= 400) {
    return { httpStatus, message: stringAt(fields, 'detail') ?? stringAt(fields, 'title') };
  }
  return undefined;
}
