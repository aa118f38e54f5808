/**
 * What a gRPC request message says, read by field number from the request type of each rpc:
 * 1.0 per docs/proto/a2a-v1.0.0.proto, 0.3 per docs/proto/a2a-v0.3.0.proto (resource names
 * `tasks/{id}[/pushNotificationConfigs/{cfg}]`, wire-reference §6.4). Only the fields the
 * gateway wants; the rest are skipped. Throws on malformed bytes (callers use `tryDecode`).
 */
import type { BinaryReader } from '@bufbuild/protobuf/wire';
import type { Operation, ProtocolVersion } from '../operations.js';
import {
  configOfName,
  eachField,
  messageField,
  stringField,
  taskOfName,
  varintField,
  type WireType,
} from './proto-read.js';

export interface GrpcRequestFields {
  tenant?: string;
  /** The task the operation acts on (task and push-config rpcs). */
  taskId?: string;
  pushConfigId?: string;
  /** ListTasksRequest.context_id. */
  listContextId?: string;
  /** ListTasksRequest.page_token, every occurrence (the agent reads the last; page-tokens.ts). */
  pageTokens?: string[];
  messageId?: string;
  messageContextId?: string;
  messageTaskId?: string;
  referenceTaskIds?: string[];
  /** SendMessageConfiguration was present. */
  configuration: boolean;
  /** 1.0 SendMessageConfiguration.return_immediately. */
  returnImmediately?: boolean;
  /** 0.3 SendMessageConfiguration.blocking. */
  blocking?: boolean;
  historyLength?: number;
  pushUrl?: string;
  /** Other task ids the message names (0.3 TaskPushNotificationConfig.name). */
  otherTaskIds?: string[];
}

type Visit = (f: GrpcRequestFields, no: number, wt: WireType, r: BinaryReader) => void;

/** Reads the request message of `operation` in `version`. */
export function readRequestMessage(
  bytes: Uint8Array,
  operation: Operation,
  version: ProtocolVersion,
): GrpcRequestFields {
  const fields: GrpcRequestFields = { configuration: false };
  const visit = visitorOf(operation, version);
  if (visit !== undefined) eachField(bytes, (no, wt, r) => visit(fields, no, wt, r));
  else eachField(bytes, () => {}); // still checks that it is protobuf
  return fields;
}

function visitorOf(op: Operation, version: ProtocolVersion): Visit | undefined {
  const v1 = version === '1.0';
  switch (op) {
    case 'SendMessage':
    case 'SendStreamingMessage':
      return v1 ? sendV1 : sendV03;
    case 'GetTask':
      return v1 ? getTaskV1 : getTaskV03;
    case 'CancelTask':
    case 'SubscribeToTask':
      return v1 ? taskIdV1 : taskNameV03;
    case 'ListTasks':
      return v1 ? listTasksV1 : undefined;
    case 'CreateTaskPushNotificationConfig':
      return v1 ? pushConfigV1 : createPushV03;
    case 'GetTaskPushNotificationConfig':
    case 'DeleteTaskPushNotificationConfig':
      return v1 ? pushConfigIdsV1 : taskNameV03;
    case 'ListTaskPushNotificationConfigs':
      return v1 ? listPushV1 : taskNameV03;
    case 'GetExtendedAgentCard':
      return v1 ? tenantOnly : undefined;
    case 'AgentCard':
    case 'unknown':
      return undefined;
    default: {
      const _exhaustive: never = op;
      return _exhaustive;
    }
  }
}

/** 1.0 SendMessageRequest: tenant 1, message 2, configuration 3. */
const sendV1: Visit = (f, no, wt, r) => {
  if (no === 1) f.tenant = stringField(wt, r);
  else if (no === 2) readMessage(f, messageField(wt, r), true);
  else if (no === 3) readConfiguration(f, messageField(wt, r), true);
};

/** 0.3 SendMessageRequest: request 1 (json_name message), configuration 2. */
const sendV03: Visit = (f, no, wt, r) => {
  if (no === 1) readMessage(f, messageField(wt, r), false);
  else if (no === 2) readConfiguration(f, messageField(wt, r), false);
};

/** Message: message_id 1, context_id 2, task_id 3; 1.0 reference_task_ids 8 (0.3 has none). */
function readMessage(f: GrpcRequestFields, bytes: Uint8Array | undefined, v1: boolean): void {
  if (bytes === undefined) return;
  eachField(bytes, (no, wt, r) => {
    if (no === 1) f.messageId = stringField(wt, r);
    else if (no === 2) f.messageContextId = stringField(wt, r);
    else if (no === 3) f.messageTaskId = stringField(wt, r);
    else if (no === 8 && v1) addTo(f, 'referenceTaskIds', stringField(wt, r));
  });
}

/**
 * SendMessageConfiguration. 1.0: task_push_notification_config 2 (TaskPushNotificationConfig,
 * url 4), history_length 3, return_immediately 4. 0.3: push_notification 2
 * (PushNotificationConfig, url 2), history_length 3, blocking 4.
 */
function readConfiguration(f: GrpcRequestFields, bytes: Uint8Array | undefined, v1: boolean): void {
  if (bytes === undefined) return;
  f.configuration = true;
  eachField(bytes, (no, wt, r) => {
    if (no === 2) f.pushUrl = urlOf(messageField(wt, r), v1 ? 4 : 2) ?? f.pushUrl;
    else if (no === 3) f.historyLength = varintField(wt, r);
    else if (no === 4 && v1) f.returnImmediately = varintField(wt, r) !== 0;
    else if (no === 4) f.blocking = varintField(wt, r) !== 0;
  });
}

function urlOf(bytes: Uint8Array | undefined, urlField: number): string | undefined {
  let url: string | undefined;
  if (bytes === undefined) return undefined;
  eachField(bytes, (no, wt, r) => {
    if (no === urlField) url = stringField(wt, r);
  });
  return url;
}

/** 1.0 GetTaskRequest: tenant 1, id 2, history_length 3. */
const getTaskV1: Visit = (f, no, wt, r) => {
  if (no === 3) f.historyLength = varintField(wt, r);
  else taskIdV1(f, no, wt, r);
};

/** 0.3 GetTaskRequest: name 1 (`tasks/{id}`), history_length 2. */
const getTaskV03: Visit = (f, no, wt, r) => {
  if (no === 2) f.historyLength = varintField(wt, r);
  else taskNameV03(f, no, wt, r);
};

/** 1.0 CancelTaskRequest, SubscribeToTaskRequest (and GetTaskRequest): tenant 1, id 2. */
const taskIdV1: Visit = (f, no, wt, r) => {
  if (no === 1) f.tenant = stringField(wt, r);
  else if (no === 2) f.taskId = stringField(wt, r);
};

/** 0.3 requests naming a task or a push config by resource name in field 1 (`name` or `parent`). */
const taskNameV03: Visit = (f, no, wt, r) => {
  if (no !== 1) return;
  const name = stringField(wt, r);
  f.taskId = taskOfName(name);
  f.pushConfigId = configOfName(name);
};

/** 1.0 ListTasksRequest: tenant 1, context_id 2, page_token 5, history_length 6. */
const listTasksV1: Visit = (f, no, wt, r) => {
  if (no === 1) f.tenant = stringField(wt, r);
  else if (no === 2) f.listContextId = stringField(wt, r);
  else if (no === 5) (f.pageTokens ??= []).push(stringField(wt, r) ?? '');
  else if (no === 6) f.historyLength = varintField(wt, r);
};

/** 1.0 TaskPushNotificationConfig (the CreateTaskPushNotificationConfig request): tenant 1, id 2, task_id 3, url 4. */
const pushConfigV1: Visit = (f, no, wt, r) => {
  if (no === 1) f.tenant = stringField(wt, r);
  else if (no === 2) f.pushConfigId = stringField(wt, r);
  else if (no === 3) f.taskId = stringField(wt, r);
  else if (no === 4) f.pushUrl = stringField(wt, r);
};

/**
 * 0.3 CreateTaskPushNotificationConfigRequest: parent 1 (`tasks/{id}`), config_id 2, config 3
 * (TaskPushNotificationConfig: name 1, push_notification_config 2 → PushNotificationConfig url 2).
 */
const createPushV03: Visit = (f, no, wt, r) => {
  if (no === 1) f.taskId = taskOfName(stringField(wt, r));
  else if (no === 2) f.pushConfigId = stringField(wt, r);
  else if (no === 3) readTaskPushConfigV03(f, messageField(wt, r));
};

function readTaskPushConfigV03(f: GrpcRequestFields, bytes: Uint8Array | undefined): void {
  if (bytes === undefined) return;
  eachField(bytes, (no, wt, r) => {
    if (no === 1) addTo(f, 'otherTaskIds', taskOfName(stringField(wt, r)));
    else if (no === 2) f.pushUrl = urlOf(messageField(wt, r), 2) ?? f.pushUrl;
  });
}

/** 1.0 Get/DeleteTaskPushNotificationConfigRequest: tenant 1, task_id 2, id 3. */
const pushConfigIdsV1: Visit = (f, no, wt, r) => {
  if (no === 1) f.tenant = stringField(wt, r);
  else if (no === 2) f.taskId = stringField(wt, r);
  else if (no === 3) f.pushConfigId = stringField(wt, r);
};

/** 1.0 ListTaskPushNotificationConfigsRequest: task_id 1, tenant 4. */
const listPushV1: Visit = (f, no, wt, r) => {
  if (no === 1) f.taskId = stringField(wt, r);
  else if (no === 4) f.tenant = stringField(wt, r);
};

/** 1.0 GetExtendedAgentCardRequest: tenant 1. */
const tenantOnly: Visit = (f, no, wt, r) => {
  if (no === 1) f.tenant = stringField(wt, r);
};

function addTo(f: GrpcRequestFields, key: 'referenceTaskIds' | 'otherTaskIds', id: string | undefined): void {
  if (id === undefined) return;
  const list = (f[key] ??= []);
  if (list.length < 64 && !list.includes(id)) list.push(id);
}
