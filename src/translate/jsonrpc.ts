/**
 * JSON-RPC calls and answers between 1.0 and 0.3 (wire-reference §1.1, §6.2, §6.3): the method
 * name, the params of each operation, the result (1.0 wraps a SendMessage result and stream
 * events as `{task}` / `{message}` / `{statusUpdate}` / `{artifactUpdate}`, 0.3 sends the bare
 * `kind`-tagged object), push configs (0.3 get/delete name the task `id` and the config
 * `pushNotificationConfigId`; 1.0 `taskId` and `id`) and errors (errors.ts). The envelope's
 * `jsonrpc` and `id` and every member not named here pass through.
 */
import type { Operation, ProtocolVersion } from '../a2a/operations.js';
import { translateCard } from './card.js';
import { rpc03 } from './rpc03.js';
import { rpcErrorDown, rpcErrorUp } from './errors.js';
import { isObj, objectAt, rest, Untranslatable, type Obj } from './shapes.js';

const METHODS: Readonly<Partial<Record<Operation, string>>> = {
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

/** 1.0 operations with no 0.3 counterpart (wire-reference §6.6): refused with UnsupportedOperation. */
function methodFor(op: Operation, to: ProtocolVersion): string {
  if (to === '1.0') return op;
  const method = METHODS[op];
  if (method === undefined) throw new Untranslatable(op, 'A2A 0.3 has no such operation', true);
  return method;
}

/** A 1.0 request's `tenant`: 0.3 has none, so a named one cannot be kept. */
export function noTenant(params: Obj, where: string): Obj {
  if (typeof params['tenant'] === 'string' && params['tenant'] !== '') {
    throw new Untranslatable(`${where}.tenant`, 'A2A 0.3 has no tenants');
  }
  return rest(params, ['tenant']);
}

/** A JSON-RPC request, `to` the agent's version. */
export function rpcRequest(doc: Obj, op: Operation, to: ProtocolVersion): Obj {
  const params = doc['params'] === undefined ? {} : objectAt(doc['params'], 'params');
  return { ...doc, method: methodFor(op, to), params: rpcParams(params, op, to) };
}

function rpcParams(p: Obj, op: Operation, to: ProtocolVersion): Obj {
  const dir = to === '0.3' ? 'down' : 'up';
  const model = rpc03[dir];
  const params = to === '0.3' ? noTenant(p, 'params') : p;
  switch (op) {
    case 'SendMessage':
    case 'SendStreamingMessage': {
      const out: Obj = { ...params, message: model.message(params['message'], 'params.message') };
      // Down, a send without configuration gets one: its blocking default written out (rpc03.ts).
      const config = params['configuration'] ?? (dir === 'down' && op === 'SendMessage' ? {} : undefined);
      if (config !== undefined) out['configuration'] = model.sendConfiguration(config, 'params.configuration');
      return out;
    }
    case 'CreateTaskPushNotificationConfig':
      return model.taskPushConfig(params, 'params');
    case 'GetTaskPushNotificationConfig':
    case 'DeleteTaskPushNotificationConfig':
      return dir === 'down'
        ? { ...rest(params, ['taskId', 'id']), id: params['taskId'], pushNotificationConfigId: params['id'] }
        : {
            ...rest(params, ['id', 'pushNotificationConfigId']),
            taskId: params['id'],
            id: params['pushNotificationConfigId'],
          };
    case 'ListTaskPushNotificationConfigs':
      return dir === 'down' ? listParamsDown(params) : { ...rest(params, ['id']), taskId: params['id'] };
    default:
      return params;
  }
}

/** 0.3 lists every config at once: a page token (a later page) has no meaning there. */
function listParamsDown(params: Obj): Obj {
  if (typeof params['pageToken'] === 'string' && params['pageToken'] !== '') {
    throw new Untranslatable('params.pageToken', 'A2A 0.3 lists push configs in one page');
  }
  return { ...rest(params, ['taskId', 'pageSize', 'pageToken']), id: params['taskId'] };
}

/** A JSON-RPC answer (unary, or one stream event), `to` the caller's version. */
export function rpcAnswer(doc: Obj, op: Operation, to: ProtocolVersion): Obj {
  if (isObj(doc['error']))
    return { ...doc, error: to === '1.0' ? rpcErrorUp(doc['error']) : rpcErrorDown(doc['error']) };
  if (!('result' in doc)) return doc;
  return { ...doc, result: rpcResult(doc['result'], op, to) };
}

function rpcResult(result: unknown, op: Operation, to: ProtocolVersion): unknown {
  const dir = to === '0.3' ? 'down' : 'up';
  const model = rpc03[dir];
  switch (op) {
    case 'SendMessage':
    case 'SendStreamingMessage':
    case 'SubscribeToTask':
      return dir === 'down' ? unwrapEvent(result) : wrapEvent(result);
    case 'GetTask':
    case 'CancelTask':
      return model.task(result, 'result');
    case 'CreateTaskPushNotificationConfig':
    case 'GetTaskPushNotificationConfig':
      return model.taskPushConfig(result, 'result');
    case 'ListTaskPushNotificationConfigs':
      return dir === 'down' ? listDown(result) : { configs: listUp(result) };
    case 'DeleteTaskPushNotificationConfig':
      return dir === 'down' ? null : {};
    case 'GetExtendedAgentCard':
      return translateCard(result, to);
    case 'ListTasks':
      // A 1.0 ListTasksResponse has no 0.3 spelling (its call cannot be made to 0.3 either, methodFor).
      if (dir === 'down') throw new Untranslatable(op, 'A2A 0.3 has no such operation', true);
      return result;
    default:
      return result;
  }
}

function listDown(result: unknown): unknown[] {
  const configs = objectAt(result, 'result')['configs'] ?? [];
  if (!Array.isArray(configs)) throw new Untranslatable('result.configs', 'expected an array');
  return configs.map((c, i) => rpc03.down.taskPushConfig(c, `result.configs[${i}]`));
}

function listUp(result: unknown): unknown[] {
  if (!Array.isArray(result)) throw new Untranslatable('result', 'expected an array');
  return result.map((c, i) => rpc03.up.taskPushConfig(c, `result[${i}]`));
}

/** 1.0 `{task | message | statusUpdate | artifactUpdate}` → the bare 0.3 object. */
function unwrapEvent(result: unknown): Obj {
  const r = objectAt(result, 'result');
  const down = rpc03.down;
  if (r['task'] !== undefined) return down.task(r['task'], 'result.task');
  if (r['message'] !== undefined) return down.message(r['message'], 'result.message');
  if (r['statusUpdate'] !== undefined) return down.statusUpdate(r['statusUpdate'], 'result.statusUpdate');
  if (r['artifactUpdate'] !== undefined) return down.artifactUpdate(r['artifactUpdate'], 'result.artifactUpdate');
  throw new Untranslatable('result', `no 0.3 counterpart for ${JSON.stringify(Object.keys(r))}`);
}

/** The bare 0.3 object → 1.0's wrapper, by its `kind`. */
function wrapEvent(result: unknown): Obj {
  const r = objectAt(result, 'result');
  const up = rpc03.up;
  switch (r['kind']) {
    case 'task':
      return { task: up.task(r, 'result') };
    case 'message':
      return { message: up.message(r, 'result') };
    case 'status-update':
      return { statusUpdate: up.statusUpdate(r, 'result') };
    case 'artifact-update':
      return { artifactUpdate: up.artifactUpdate(r, 'result') };
    default:
      throw new Untranslatable('result.kind', `unknown kind ${JSON.stringify(r['kind'])}`);
  }
}
