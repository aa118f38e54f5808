/**
 * One call for every kind of recorded payload: translate it (src/translate/) the way the gateway
 * will, and check a payload against its version's schema (1.0 and 0.3 HTTP+JSON: strict ProtoJSON
 * of the vendored proto, proto-schema.ts; 0.3 JSON-RPC: the structural check, rpc03-shape.ts).
 */
import type { Operation, ProtocolVersion } from '../../../src/a2a/operations.js';
import { translateCard } from '../../../src/translate/card.js';
import { rpcAnswer, rpcRequest } from '../../../src/translate/jsonrpc.js';
import { restAnswer, restRequest } from '../../../src/translate/rest.js';
import type { Obj } from '../../../src/translate/shapes.js';
import { isError, type Payload } from './payloads.js';
import { loadProto, type ProtoSchema } from './proto-schema.js';
import * as rpc03 from './rpc03-shape.js';

export const V1 = loadProto('a2a-v1.0.0.proto');
export const V03 = loadProto('a2a-v0.3.0.proto');

export const other = (v: ProtocolVersion): ProtocolVersion => (v === '1.0' ? '0.3' : '1.0');

/** `p`'s kind of payload, `json` in `p.version`'s spelling or the other's, translated to `to`. */
export function translate(p: Payload, json: unknown, to: ProtocolVersion): unknown {
  switch (p.kind) {
    case 'request':
      return p.binding === 'jsonrpc' ? rpcRequest(json as Obj, p.op, to) : restRequest(json, p.op, to, p.taskId);
    case 'answer':
    case 'event':
      return p.binding === 'jsonrpc' ? rpcAnswer(json as Obj, p.op, to) : restAnswer(json, p.op, to, p.httpStatus);
    case 'push':
      // A webhook body is one stream event without the JSON-RPC envelope (1.0 StreamResponse, 0.3 the bare event).
      return rpcAnswer({ jsonrpc: '2.0', id: 0, result: json }, 'SendStreamingMessage', to)['result'];
    case 'card':
      return translateCard(json, to);
  }
}

/** The 1.0 proto message of each operation's request (JSON-RPC params, REST body). */
const V1_REQUEST: Readonly<Partial<Record<Operation, string>>> = {
  SendMessage: 'SendMessageRequest',
  SendStreamingMessage: 'SendMessageRequest',
  GetTask: 'GetTaskRequest',
  ListTasks: 'ListTasksRequest',
  CancelTask: 'CancelTaskRequest',
  SubscribeToTask: 'SubscribeToTaskRequest',
  CreateTaskPushNotificationConfig: 'TaskPushNotificationConfig',
  GetTaskPushNotificationConfig: 'GetTaskPushNotificationConfigRequest',
  ListTaskPushNotificationConfigs: 'ListTaskPushNotificationConfigsRequest',
  DeleteTaskPushNotificationConfig: 'DeleteTaskPushNotificationConfigRequest',
  GetExtendedAgentCard: 'GetExtendedAgentCardRequest',
};

/** The 1.0 proto message of each operation's answer (unary result, or one stream event). */
const V1_ANSWER: Readonly<Partial<Record<Operation, string>>> = {
  SendMessage: 'SendMessageResponse',
  SendStreamingMessage: 'StreamResponse',
  SubscribeToTask: 'StreamResponse',
  GetTask: 'Task',
  ListTasks: 'ListTasksResponse',
  CancelTask: 'Task',
  CreateTaskPushNotificationConfig: 'TaskPushNotificationConfig',
  GetTaskPushNotificationConfig: 'TaskPushNotificationConfig',
  ListTaskPushNotificationConfigs: 'ListTaskPushNotificationConfigsResponse',
  GetExtendedAgentCard: 'AgentCard',
};

/**
 * The 0.3 proto messages of the HTTP+JSON bodies (the a2a-js 0.3 REST server reads the whole
 * CreateTaskPushNotificationConfigRequest from the body, not only `config`).
 */
const V03_REST_REQUEST: Readonly<Partial<Record<Operation, string>>> = {
  SendMessage: 'SendMessageRequest',
  SendStreamingMessage: 'SendMessageRequest',
  CreateTaskPushNotificationConfig: 'CreateTaskPushNotificationConfigRequest',
};
const V03_REST_ANSWER: Readonly<Partial<Record<Operation, string>>> = {
  SendMessage: 'SendMessageResponse',
  SendStreamingMessage: 'StreamResponse',
  SubscribeToTask: 'StreamResponse',
  GetTask: 'Task',
  CancelTask: 'Task',
  CreateTaskPushNotificationConfig: 'TaskPushNotificationConfig',
  GetTaskPushNotificationConfig: 'TaskPushNotificationConfig',
  ListTaskPushNotificationConfigs: 'ListTaskPushNotificationConfigResponse',
  GetExtendedAgentCard: 'AgentCard',
};

/** 0.3 JSON-RPC method of each operation (wire-reference §6.2). */
export const METHOD_03: Readonly<Partial<Record<Operation, string>>> = {
  SendMessage: 'message/send',
  SendStreamingMessage: 'message/stream',
  GetTask: 'tasks/get',
  CancelTask: 'tasks/cancel',
  SubscribeToTask: 'tasks/resubscribe',
  CreateTaskPushNotificationConfig: 'tasks/pushNotificationConfig/set',
  GetTaskPushNotificationConfig: 'tasks/pushNotificationConfig/get',
  ListTaskPushNotificationConfigs: 'tasks/pushNotificationConfig/list',
  DeleteTaskPushNotificationConfig: 'tasks/pushNotificationConfig/delete',
  GetExtendedAgentCard: 'agent/getAuthenticatedExtendedCard',
};

function named<T>(table: Readonly<Partial<Record<Operation, T>>>, op: Operation): T {
  const found = table[op];
  if (found === undefined) throw new Error(`no schema for ${op}`);
  return found;
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function fail(why: string): never {
  throw new Error(why);
}

/** 1.0 JSON-RPC error (wire-reference §4.2): `data`, when present, an array of `@type` objects. */
function rpcError1(e: unknown): void {
  if (!isObj(e) || !Number.isInteger(e['code']) || typeof e['message'] !== 'string') fail('error: {code, message}');
  if (e['data'] === undefined) return;
  if (!Array.isArray(e['data'])) fail('error.data: 1.0 takes an array');
  for (const d of e['data']) if (!isObj(d) || typeof d['@type'] !== 'string') fail('error.data[]: an @type object');
}

/** 1.0 HTTP+JSON error (§11.6): the Google API error body. */
function restError1(body: unknown, httpStatus: number): void {
  const e = isObj(body) ? body['error'] : undefined;
  if (!isObj(e)) fail('body: {error: {..}}');
  if (e['code'] !== httpStatus) fail(`error.code ${String(e['code'])} is not the HTTP status ${httpStatus}`);
  if (typeof e['status'] !== 'string' || typeof e['message'] !== 'string') fail('error: {status, message}');
  if (!Array.isArray(e['details'])) fail('error.details: an array');
  for (const d of e['details'])
    if (!isObj(d) || typeof d['@type'] !== 'string') fail('error.details[]: an @type object');
}

function proto(schema: ProtoSchema, name: string, json: unknown): void {
  schema.check(name, json);
}

/**
 * Throws unless `json` is a well-formed payload of `p`'s kind in version `version` (its binding's
 * schema). `json` is `p.json` or its translation.
 */
export function checkSchema(p: Payload, json: unknown, version: ProtocolVersion): void {
  const error = isError({ ...p, json });
  if (version === '1.0') {
    switch (p.kind) {
      case 'request':
        if (p.binding === 'rest') return proto(V1, named(V1_REQUEST, p.op), json);
        if (!isObj(json) || json['jsonrpc'] !== '2.0' || json['method'] !== p.op) fail(`request: method ${p.op}`);
        return proto(V1, named(V1_REQUEST, p.op), json['params'] ?? {});
      case 'answer':
      case 'event':
        if (p.binding === 'rest')
          return error ? restError1(json, p.httpStatus) : proto(V1, named(V1_ANSWER, p.op), json);
        if (!isObj(json) || json['jsonrpc'] !== '2.0' || !('id' in json)) fail('response: jsonrpc 2.0 with an id');
        if (error) return rpcError1(json['error']);
        if (p.op === 'DeleteTaskPushNotificationConfig') return proto(V1, 'google.protobuf.Empty', json['result']);
        return proto(V1, named(V1_ANSWER, p.op), json['result']);
      case 'push':
        return proto(V1, 'StreamResponse', json);
      case 'card':
        return proto(V1, 'AgentCard', json);
    }
  }
  switch (p.kind) {
    case 'request':
      return p.binding === 'rest' ? proto(V03, named(V03_REST_REQUEST, p.op), json) : rpc03.request(json);
    case 'answer':
    case 'event':
      if (p.binding === 'jsonrpc') return rpc03.response(json, named(METHOD_03, p.op));
      if (error) {
        // 0.3 HTTP+JSON errors: the a2a-js 0.3 server's `{code, message}` (wire-reference §4.2).
        if (!isObj(json) || !Number.isInteger(json['code']) || typeof json['message'] !== 'string')
          fail('0.3 error: {code, message}');
        return;
      }
      return proto(V03, named(V03_REST_ANSWER, p.op), json);
    case 'push':
      return rpc03.event(json, 'body');
    case 'card':
      return rpc03.card(json);
  }
}
