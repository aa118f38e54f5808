/**
 * What a request body says: the JSON paths the request decoder wants, and readers that turn
 * them into facts. JSON-RPC puts the request message under `params` (§9, wire-ref §1.1); REST
 * sends it as the body itself (§11, wire-ref §1.2). 0.3 spellings per wire-ref §6.3, §6.4.
 */
import { compileScanPlan } from '../codec/json-scan.js';
import { booleanAt, fieldPath, has, joinPath, numberAt, pathsIn, stringAt, type JsonFields } from '../codec/json-fields.js';
import type { Operation, ProtocolVersion } from './operations.js';

/** Where the request message sits: `params` for JSON-RPC, the root for REST. */
export type BodyRoot = 'params' | '';

const MESSAGE_KEYS = ['message', 'request'] as const; // 0.3 proto field `request` has json_name `message`; accept both
const MESSAGE_FIELDS = ['messageId', 'taskId', 'contextId', 'kind', 'role', 'parts', 'content', 'parts.*.kind'];
const PUSH_URL_IN_CONFIGURATION = [
  'configuration.taskPushNotificationConfig.url', // 1.0
  'configuration.pushNotificationConfig.url', // 0.3 JSON-RPC
  'configuration.pushNotification.url', // 0.3 proto/REST
];
const REQUEST_FIELDS = [
  'id',
  'taskId',
  'tenant',
  'historyLength',
  'contextId',
  'url',
  'pushNotificationConfig.url',
  'pushNotificationConfigId',
  'configuration.returnImmediately',
  'configuration.blocking',
  'configuration.historyLength',
  'configuration.taskPushNotificationConfig',
  'configuration.pushNotificationConfig',
  'configuration.pushNotification',
  ...PUSH_URL_IN_CONFIGURATION,
  ...MESSAGE_KEYS.flatMap((m) => MESSAGE_FIELDS.map((f) => joinPath(m, f))),
];

export function at(root: BodyRoot, path: string): string {
  return joinPath(root, path);
}

/** Compiled paths of the message fields under `base`. */
function messageFieldsAt(base: string) {
  const p = (path: string) => fieldPath(joinPath(base, path));
  return {
    messageId: p('messageId'),
    taskId: p('taskId'),
    contextId: p('contextId'),
    kind: p('kind'),
    role: p('role'),
    parts: p('parts'),
    content: p('content'),
    partsKind: p('parts.*.kind'),
  };
}

type MessageFields = ReturnType<typeof messageFieldsAt>;

/** Compiled paths of a request body whose message sits under `root`. */
function requestTable(root: BodyRoot) {
  const p = (path: string) => fieldPath(at(root, path));
  return {
    messageKey: p('message'),
    requestKey: p('request'),
    message: messageFieldsAt(at(root, 'message')),
    request: messageFieldsAt(at(root, 'request')),
    id: p('id'),
    taskId: p('taskId'),
    tenant: p('tenant'),
    historyLength: p('historyLength'),
    contextId: p('contextId'),
    pushNotificationConfigId: p('pushNotificationConfigId'),
    returnImmediately: p('configuration.returnImmediately'),
    blocking: p('configuration.blocking'),
    configHistoryLength: p('configuration.historyLength'),
    taskPushNotificationConfig: p('configuration.taskPushNotificationConfig'),
    pushNotificationConfig: p('configuration.pushNotificationConfig'),
    pushNotification: p('configuration.pushNotification'),
    pushUrlOfCreate: [p('url'), p('pushNotificationConfig.url')],
    pushUrlOfSend: PUSH_URL_IN_CONFIGURATION.map(p),
  };
}

type RequestTable = ReturnType<typeof requestTable>;

const TABLES: Readonly<Record<BodyRoot, RequestTable>> = { params: requestTable('params'), '': requestTable('') };

/** Top-level paths of any request body. */
export const BODY = {
  root: fieldPath(''),
  jsonrpc: fieldPath('jsonrpc'),
  method: fieldPath('method'),
  id: fieldPath('id'),
  batchJsonrpc: fieldPath('*.jsonrpc'),
} as const;

export const REQUEST_PLAN = compileScanPlan([
  '',
  'jsonrpc',
  'method',
  '*.jsonrpc',
  ...(['params', ''] as const).flatMap((root) => REQUEST_FIELDS.map((f) => at(root, f))),
  // Every path the readers below use, so the scanner records all of them (the message keys
  // themselves were missing: a 0.3 `request` body lost its message ids on the scan path).
  ...pathsIn([BODY, TABLES]),
]);

export function requestTableOf(root: BodyRoot): RequestTable {
  return TABLES[root];
}

function messageOf(fields: JsonFields, table: RequestTable): MessageFields {
  return !has(fields, table.messageKey) && has(fields, table.requestKey) ? table.request : table.message;
}

/** What the message and configuration look like, as version evidence (wire-ref §6.1). */
export function payloadVersion(fields: JsonFields, root: BodyRoot): ProtocolVersion | undefined {
  const table = TABLES[root];
  const m = messageOf(fields, table);
  const role = stringAt(fields, m.role);
  const v03 =
    has(fields, m.kind) ||
    has(fields, m.partsKind) ||
    has(fields, m.content) ||
    role === 'user' ||
    role === 'agent' ||
    has(fields, table.blocking) ||
    has(fields, table.pushNotificationConfig) ||
    has(fields, table.pushNotification);
  if (v03) return '0.3';
  const v10 = has(fields, m.parts) || has(fields, table.returnImmediately) || has(fields, table.taskPushNotificationConfig);
  return v10 ? '1.0' : undefined;
}

export interface MessageFacts {
  readonly taskId?: string;
  readonly contextId?: string;
  readonly messageId?: string;
}

export function messageFacts(fields: JsonFields, root: BodyRoot): MessageFacts {
  const m = messageOf(fields, TABLES[root]);
  return {
    taskId: stringAt(fields, m.taskId),
    contextId: stringAt(fields, m.contextId),
    messageId: stringAt(fields, m.messageId),
  };
}

/**
 * Whether a SendMessage waits for a terminal or interrupted state. 1.0: `returnImmediately`
 * absent or false ⇒ blocking (§3.2.2, wire-ref §5.1). 0.3: `blocking` absent or true ⇒
 * blocking (SDK behaviour, wire-ref §6.3). `undefined` when the body was not read far enough.
 */
export function isBlocking(fields: JsonFields, root: BodyRoot, version: ProtocolVersion): boolean | undefined {
  const table = TABLES[root];
  if (version === '1.0') {
    const returnImmediately = booleanAt(fields, table.returnImmediately);
    if (returnImmediately !== undefined) return !returnImmediately;
  } else {
    const blocking = booleanAt(fields, table.blocking);
    if (blocking !== undefined) return blocking;
  }
  return fields.complete ? true : undefined;
}

export function pushUrl(fields: JsonFields, root: BodyRoot, op: Operation): string | undefined {
  const table = TABLES[root];
  const candidates =
    op === 'CreateTaskPushNotificationConfig'
      ? table.pushUrlOfCreate
      : op === 'SendMessage' || op === 'SendStreamingMessage'
        ? table.pushUrlOfSend
        : [];
  for (const path of candidates) {
    const url = stringAt(fields, path);
    if (url !== undefined) return url;
  }
  return undefined;
}

export function historyLengthIn(fields: JsonFields, root: BodyRoot, op: Operation): number | undefined {
  if (op === 'SendMessage' || op === 'SendStreamingMessage') return numberAt(fields, TABLES[root].configHistoryLength);
  if (op === 'GetTask' || op === 'ListTasks') return numberAt(fields, TABLES[root].historyLength);
  return undefined;
}

/**
 * Task and push-config ids of JSON-RPC task operations. The param names depend on the method's
 * version: 1.0 push ops use `taskId` + `id` (config), 0.3 used `id` (task) +
 * `pushNotificationConfigId` (wire-ref §6.3: "`id` changes meaning!").
 */
export function jsonRpcTaskIds(
  fields: JsonFields,
  op: Operation,
  methodVersion: ProtocolVersion,
): { taskId?: string; configId?: string } {
  const params = TABLES.params;
  switch (op) {
    case 'GetTask':
    case 'CancelTask':
    case 'SubscribeToTask':
      return { taskId: stringAt(fields, params.id) };
    case 'CreateTaskPushNotificationConfig':
    case 'GetTaskPushNotificationConfig':
    case 'ListTaskPushNotificationConfigs':
    case 'DeleteTaskPushNotificationConfig':
      return methodVersion === '1.0'
        ? { taskId: stringAt(fields, params.taskId), configId: op === 'ListTaskPushNotificationConfigs' ? undefined : stringAt(fields, params.id) }
        : { taskId: stringAt(fields, params.taskId) ?? stringAt(fields, params.id), configId: stringAt(fields, params.pushNotificationConfigId) };
    case 'SendMessage':
    case 'SendStreamingMessage':
      return { taskId: messageFacts(fields, 'params').taskId };
    case 'ListTasks':
    case 'GetExtendedAgentCard':
    case 'AgentCard':
    case 'unknown':
      return {};
    default: {
      const _exhaustive: never = op;
      return _exhaustive;
    }
  }
}
