/**
 * What a request body says: the JSON paths the request decoder wants, and readers that turn
 * them into facts. JSON-RPC puts the request message under `params` (§9, wire-ref §1.1); REST
 * sends it as the body itself (§11, wire-ref §1.2). 0.3 spellings per wire-ref §6.3, §6.4.
 */
import { compileScanPlan } from '../codec/json-scan.js';
import { booleanAt, firstPresent, joinPath, numberAt, stringAt, type JsonFields } from '../codec/json-fields.js';
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

const MESSAGE_PATHS = [MESSAGE_KEYS.map((m) => m), MESSAGE_KEYS.map((m) => joinPath('params', m))] as const;

export function at(root: BodyRoot, path: string): string {
  return joinPath(root, path);
}

export const REQUEST_PLAN = compileScanPlan([
  '',
  'jsonrpc',
  'method',
  '*.jsonrpc',
  ...(['params', ''] as const).flatMap((root) => REQUEST_FIELDS.map((f) => at(root, f))),
]);

function messageKey(fields: JsonFields, root: BodyRoot): string {
  return firstPresent(fields, MESSAGE_PATHS[root === '' ? 0 : 1]) ?? at(root, 'message');
}

/** What the message and configuration look like, as version evidence (wire-ref §6.1). */
export function payloadVersion(fields: JsonFields, root: BodyRoot): ProtocolVersion | undefined {
  const m = messageKey(fields, root);
  const role = stringAt(fields, joinPath(m, 'role'));
  const has = (path: string) => fields.get(path) !== undefined;
  const v03 =
    has(joinPath(m, 'kind')) ||
    has(joinPath(m, 'parts.*.kind')) ||
    has(joinPath(m, 'content')) ||
    role === 'user' ||
    role === 'agent' ||
    has(at(root, 'configuration.blocking')) ||
    has(at(root, 'configuration.pushNotificationConfig')) ||
    has(at(root, 'configuration.pushNotification'));
  if (v03) return '0.3';
  const v10 =
    has(joinPath(m, 'parts')) ||
    has(at(root, 'configuration.returnImmediately')) ||
    has(at(root, 'configuration.taskPushNotificationConfig'));
  return v10 ? '1.0' : undefined;
}

export interface MessageFacts {
  readonly taskId?: string;
  readonly contextId?: string;
  readonly messageId?: string;
}

export function messageFacts(fields: JsonFields, root: BodyRoot): MessageFacts {
  const m = messageKey(fields, root);
  return {
    taskId: stringAt(fields, joinPath(m, 'taskId')),
    contextId: stringAt(fields, joinPath(m, 'contextId')),
    messageId: stringAt(fields, joinPath(m, 'messageId')),
  };
}

/**
 * Whether a SendMessage waits for a terminal or interrupted state. 1.0: `returnImmediately`
 * absent or false ⇒ blocking (§3.2.2, wire-ref §5.1). 0.3: `blocking` absent or true ⇒
 * blocking (SDK behaviour, wire-ref §6.3). `undefined` when the body was not read far enough.
 */
export function isBlocking(fields: JsonFields, root: BodyRoot, version: ProtocolVersion): boolean | undefined {
  if (version === '1.0') {
    const returnImmediately = booleanAt(fields, at(root, 'configuration.returnImmediately'));
    if (returnImmediately !== undefined) return !returnImmediately;
  } else {
    const blocking = booleanAt(fields, at(root, 'configuration.blocking'));
    if (blocking !== undefined) return blocking;
  }
  return fields.complete ? true : undefined;
}

export function pushUrl(fields: JsonFields, root: BodyRoot, op: Operation): string | undefined {
  const candidates =
    op === 'CreateTaskPushNotificationConfig'
      ? ['url', 'pushNotificationConfig.url']
      : op === 'SendMessage' || op === 'SendStreamingMessage'
        ? PUSH_URL_IN_CONFIGURATION
        : [];
  for (const path of candidates) {
    const url = stringAt(fields, at(root, path));
    if (url !== undefined) return url;
  }
  return undefined;
}

export function historyLengthIn(fields: JsonFields, root: BodyRoot, op: Operation): number | undefined {
  if (op === 'SendMessage' || op === 'SendStreamingMessage') return numberAt(fields, at(root, 'configuration.historyLength'));
  if (op === 'GetTask' || op === 'ListTasks') return numberAt(fields, at(root, 'historyLength'));
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
  const p = (path: string) => stringAt(fields, at('params', path));
  switch (op) {
    case 'GetTask':
    case 'CancelTask':
    case 'SubscribeToTask':
      return { taskId: p('id') };
    case 'CreateTaskPushNotificationConfig':
    case 'GetTaskPushNotificationConfig':
    case 'ListTaskPushNotificationConfigs':
    case 'DeleteTaskPushNotificationConfig':
      return methodVersion === '1.0'
        ? { taskId: p('taskId'), configId: op === 'ListTaskPushNotificationConfigs' ? undefined : p('id') }
        : { taskId: p('taskId') ?? p('id'), configId: p('pushNotificationConfigId') };
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
