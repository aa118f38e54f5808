/**
 * What a request body says: the JSON paths the request decoder wants, and readers that turn
 * them into facts. JSON-RPC puts the request message under `params` (§9, wire-reference §1.1); REST
 * sends it as the body itself (§11, wire-reference §1.2). 0.3 spellings per wire-reference §6.3, §6.4.
 */
import { compileScanPlan, withContainers } from '../codec/json-scan.js';
import { joinPath } from '../codec/json-fields.js';
import { bool, firstOf, num, str, type Json } from '../codec/json-value.js';
import type { Operation, ProtocolVersion } from './operations.js';

/** Where the request message sits: `params` for JSON-RPC, the root for REST. */
export type BodyRoot = 'params' | '';

const MESSAGE_KEYS = ['message', 'request'] as const; // 0.3 proto field `request` has json_name `message`; accept both
const MESSAGE_FIELDS = [
  'messageId',
  'taskId',
  'task_id',
  // Tasks a message refers to: an SDK agent loads them for its executor (task ownership checks them).
  'referenceTaskIds.*',
  'reference_task_ids.*',
  'context_id',
  'contextId',
  'kind',
  'role',
  'parts',
  'content',
  'parts.*.kind',
];
/** Push configs in a SendMessage configuration. The SDKs' ProtoJSON readers also take the proto
 * field names (snake_case), so access control reads those as well. */
const PUSH_CONFIG_IN_CONFIGURATION = [
  'configuration.taskPushNotificationConfig', // 1.0
  'configuration.pushNotificationConfig', // 0.3 JSON-RPC
  'configuration.pushNotification', // 0.3 proto/REST
  'configuration.task_push_notification_config',
  'configuration.push_notification_config',
  'configuration.push_notification',
];
const PUSH_URL_IN_CONFIGURATION = PUSH_CONFIG_IN_CONFIGURATION.map((c) => `${c}.url`);
/** Push configs of CreateTaskPushNotificationConfig: 1.0 the body itself, 0.3 JSON-RPC nested,
 * 0.3 REST under `config` (the 0.3.14 SDK agent), each also in proto spelling. */
const PUSH_URL_IN_CREATE = [
  'url',
  'pushNotificationConfig.url',
  'push_notification_config.url',
  'config.url',
  'config.pushNotificationConfig.url',
  'config.push_notification_config.url',
];
/** The names an agent may read a ListTasks page token by: ProtoJSON parsers take the json name
 * and the proto field name alike (ListTasksRequest.page_token, docs/proto/a2a-v1.0.0.proto). */
export const PAGE_TOKEN_NAMES: readonly string[] = ['pageToken', 'page_token'];

/** Whether a query parameter's decoded name is a page token to an agent: either name, or one with
 * a suffix (`pageToken[]` is an array to an Express agent's extended query parser). */
export function isPageTokenParam(name: string): boolean {
  return PAGE_TOKEN_NAMES.some((n) => name.startsWith(n));
}

const REQUEST_FIELDS = [
  'id',
  'taskId',
  'task_id',
  'parent',
  'tenant',
  'historyLength',
  'contextId',
  'pushNotificationConfigId',
  ...PAGE_TOKEN_NAMES,
  'configuration.returnImmediately',
  'configuration.blocking',
  'configuration.historyLength',
  ...PUSH_CONFIG_IN_CONFIGURATION,
  ...PUSH_URL_IN_CONFIGURATION,
  ...PUSH_URL_IN_CREATE,
  // The message keys themselves too: which one is present picks the message (`messageOf`).
  ...MESSAGE_KEYS,
  ...MESSAGE_KEYS.flatMap((m) => MESSAGE_FIELDS.map((f) => joinPath(m, f))),
];

export function at(root: BodyRoot, path: string): string {
  return joinPath(root, path);
}

/** Every path the readers below use (test/a2a/plan-coverage.test.ts checks it on the captures). */
export const REQUEST_PLAN = compileScanPlan(
  withContainers([
    '',
    'jsonrpc',
    'method',
    '*.jsonrpc',
    ...(['params', ''] as const).flatMap((root) => REQUEST_FIELDS.map((f) => at(root, f))),
  ]),
);

const kindOf = (element: Json): unknown => element?.kind;
const jsonrpcOf = (element: Json): unknown => element?.jsonrpc;

/** The object holding the request fields: `params` (JSON-RPC) or the body (REST). */
function baseOf(doc: unknown, root: BodyRoot): Json {
  return root === '' ? (doc as Json) : (doc as Json)?.params;
}

/** The request message: `message`, else the 0.3 proto spelling `request`. */
function messageOf(base: Json): Json {
  const message = base?.message;
  return message !== undefined ? message : base?.request;
}

/** A JSON-RPC request, or a batch of them (an array whose elements say `jsonrpc`). */
export function isJsonRpcBody(doc: unknown): boolean {
  return (doc as Json)?.jsonrpc !== undefined || (Array.isArray(doc) && firstOf(doc, jsonrpcOf) !== undefined);
}

export function jsonRpcMethod(doc: unknown): string | undefined {
  return str((doc as Json)?.method);
}

/** What the message and configuration look like, as version evidence (wire-reference §6.1). */
export function payloadVersion(doc: unknown, root: BodyRoot): ProtocolVersion | undefined {
  const base = baseOf(doc, root);
  const m = messageOf(base);
  const configuration = base?.configuration;
  const role = str(m?.role);
  const v03 =
    m?.kind !== undefined ||
    firstOf(m?.parts, kindOf) !== undefined ||
    m?.content !== undefined ||
    role === 'user' ||
    role === 'agent' ||
    configuration?.blocking !== undefined ||
    configuration?.pushNotificationConfig !== undefined ||
    configuration?.pushNotification !== undefined;
  if (v03) return '0.3';
  const v10 =
    m?.parts !== undefined ||
    configuration?.returnImmediately !== undefined ||
    configuration?.taskPushNotificationConfig !== undefined;
  return v10 ? '1.0' : undefined;
}

export interface MessageFacts {
  readonly taskId?: string;
  readonly contextId?: string;
  readonly messageId?: string;
}

export function messageFacts(doc: unknown, root: BodyRoot): MessageFacts {
  const m = messageOf(baseOf(doc, root));
  return {
    taskId: str(m?.taskId),
    contextId: str(m?.contextId),
    messageId: str(m?.messageId),
  };
}

/**
 * Whether a SendMessage waits for a terminal or interrupted state. 1.0: `returnImmediately`
 * absent or false ⇒ blocking (§3.2.2, wire-reference §5.1). 0.3: `blocking` absent or true ⇒
 * blocking (SDK behaviour, wire-reference §6.3). `undefined` when the body was not read far enough
 * (`complete` false).
 */
export function isBlocking(
  doc: unknown,
  complete: boolean,
  root: BodyRoot,
  version: ProtocolVersion,
): boolean | undefined {
  const configuration = baseOf(doc, root)?.configuration;
  if (version === '1.0') {
    const returnImmediately = bool(configuration?.returnImmediately);
    if (returnImmediately !== undefined) return !returnImmediately;
  } else {
    const blocking = bool(configuration?.blocking);
    if (blocking !== undefined) return blocking;
  }
  return complete ? true : undefined;
}

export function pushUrl(doc: unknown, root: BodyRoot, op: Operation): string | undefined {
  const base = baseOf(doc, root);
  if (op === 'CreateTaskPushNotificationConfig') return str(base?.url) ?? str(base?.pushNotificationConfig?.url);
  if (op === 'SendMessage' || op === 'SendStreamingMessage') {
    // In the order of PUSH_URL_IN_CONFIGURATION.
    const configuration = base?.configuration;
    return (
      str(configuration?.taskPushNotificationConfig?.url) ??
      str(configuration?.pushNotificationConfig?.url) ??
      str(configuration?.pushNotification?.url)
    );
  }
  return undefined;
}

const CREATE_URL_KEYS = PUSH_URL_IN_CREATE.map((path) => path.split('.'));
const SEND_URL_KEYS = PUSH_URL_IN_CONFIGURATION.map((path) => path.split('.'));

/** Every push webhook URL the request carries, in any spelling an SDK agent may read. */
export function pushUrls(doc: unknown, root: BodyRoot, op: Operation): string[] | undefined {
  const paths =
    op === 'CreateTaskPushNotificationConfig'
      ? CREATE_URL_KEYS
      : op === 'SendMessage' || op === 'SendStreamingMessage'
        ? SEND_URL_KEYS
        : undefined;
  const base = baseOf(doc, root);
  if (!paths || base === null || typeof base !== 'object') return undefined;
  if (op !== 'CreateTaskPushNotificationConfig' && base.configuration === undefined) return undefined; // the usual send
  let urls: string[] | undefined;
  for (const keys of paths) {
    let node: Json = base;
    for (const key of keys) node = node?.[key];
    const url = str(node);
    if (url !== undefined && !urls?.includes(url)) (urls ??= []).push(url);
  }
  return urls;
}

/**
 * Every task id the request names, in every spelling an SDK agent may read — camelCase and
 * snake_case, `id` where a version reads the task from it, the message's task and the tasks it
 * refers to (`referenceTaskIds`, which the SDK agent loads for its executor), the 0.3 REST
 * `parent` (`tasks/{id}`) — besides `routeTaskId`. Task ownership checks them all, so a request
 * cannot name its own task where the gateway looks and another's where the agent does.
 */
export function namedTaskIds(
  doc: unknown,
  root: BodyRoot,
  op: Operation,
  idIsTask: boolean,
  routeTaskId?: string,
): string[] | undefined {
  const base = baseOf(doc, root);
  const sends = op === 'SendMessage' || op === 'SendStreamingMessage';
  const message = sends ? messageOf(base) : undefined;
  let ids: string[] | undefined;
  const add = (id: string | undefined) => {
    if (id !== undefined && !ids?.includes(id)) (ids ??= []).push(id);
  };
  add(routeTaskId);
  if (base !== null && typeof base === 'object') {
    add(str(base.taskId));
    add(str(base.task_id));
    if (idIsTask) add(str(base.id));
    add(str(base.parent)?.match(/^tasks\/([^/]+)/)?.[1]);
  }
  if (message !== null && typeof message === 'object') {
    add(str(message.taskId));
    add(str(message.task_id));
    for (const list of [message.referenceTaskIds, message.reference_task_ids]) {
      if (Array.isArray(list)) for (const id of list) add(str(id));
    }
  }
  return ids;
}

/** The contexts a message names (`contextId`, or the proto spelling `context_id`), for context ownership. */
export function namedContextIds(doc: unknown, root: BodyRoot, op: Operation): string[] | undefined {
  if (op !== 'SendMessage' && op !== 'SendStreamingMessage') return undefined;
  const message = messageOf(baseOf(doc, root));
  if (message === null || typeof message !== 'object') return undefined;
  const ids = [str(message.contextId), str(message.context_id)].filter((id): id is string => id !== undefined);
  return ids.length === 0 ? undefined : ids;
}

export function historyLengthIn(doc: unknown, root: BodyRoot, op: Operation): number | undefined {
  if (op === 'SendMessage' || op === 'SendStreamingMessage')
    return num(baseOf(doc, root)?.configuration?.historyLength);
  if (op === 'GetTask' || op === 'ListTasks') return num(baseOf(doc, root)?.historyLength);
  return undefined;
}

/** The request message's `tenant` (proto field 1 of every 1.0 request, §5.7): JSON-RPC
 * `params.tenant`, a REST body's `tenant`. Empty is none (ProtoJSON's default). */
export function tenantIn(doc: unknown, root: BodyRoot): string | undefined {
  return str(baseOf(doc, root)?.tenant) || undefined;
}

/**
 * Every non-empty page token of a ListTasks request body (JSON-RPC `params`), in either spelling.
 * A value that is not a string is kept as its JSON text: an SDK agent reads `String(value)`
 * (`["t"]` is `"t"` to it), so it must count as a token — one that never opens (page-tokens.ts).
 */
export function pageTokensIn(doc: unknown, root: BodyRoot): string[] | undefined {
  const base = baseOf(doc, root) as Record<string, unknown> | undefined;
  const tokens: string[] = [];
  for (const name of PAGE_TOKEN_NAMES) {
    const value = base?.[name];
    if (value === undefined || value === null || value === '') continue;
    tokens.push(typeof value === 'string' ? value : JSON.stringify(value));
  }
  return tokens.length > 0 ? tokens : undefined;
}

/** `params.tenant` and `params.contextId` of a JSON-RPC request. */
export function jsonRpcParam(doc: unknown, name: 'tenant' | 'contextId'): string | undefined {
  const params = (doc as Json)?.params;
  return str(name === 'tenant' ? params?.tenant : params?.contextId);
}

/**
 * Task and push-config ids of JSON-RPC task operations. The param names depend on the method's
 * version: 1.0 push ops use `taskId` + `id` (config), 0.3 used `id` (task) +
 * `pushNotificationConfigId` (wire-reference §6.3: "`id` changes meaning!").
 */
export function jsonRpcTaskIds(
  doc: unknown,
  op: Operation,
  methodVersion: ProtocolVersion,
): { taskId?: string; configId?: string } {
  const params = (doc as Json)?.params;
  switch (op) {
    case 'GetTask':
    case 'CancelTask':
    case 'SubscribeToTask':
      return { taskId: str(params?.id) };
    case 'CreateTaskPushNotificationConfig':
    case 'GetTaskPushNotificationConfig':
    case 'ListTaskPushNotificationConfigs':
    case 'DeleteTaskPushNotificationConfig':
      return methodVersion === '1.0'
        ? {
            taskId: str(params?.taskId),
            configId: op === 'ListTaskPushNotificationConfigs' ? undefined : str(params?.id),
          }
        : { taskId: str(params?.taskId) ?? str(params?.id), configId: str(params?.pushNotificationConfigId) };
    case 'SendMessage':
    case 'SendStreamingMessage':
      return { taskId: messageFacts(doc, 'params').taskId };
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
