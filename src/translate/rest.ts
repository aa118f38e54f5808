/**
 * HTTP+JSON calls and answers between 1.0 and 0.3 (wire-reference §1.2, §6.2, §6.4): the route
 * (0.3 puts `/v1` before it and calls the extended card `/v1/card`), the body of each operation
 * (rest03.ts) and errors (errors.ts). The query string (`historyLength`) and the HTTP method go
 * as they are.
 */
import { matchRestRoute } from '../a2a/rest-routes.js';
import type { Operation, ProtocolVersion } from '../a2a/operations.js';
import { translateCard } from './card.js';
import { rest03 } from './rest03.js';
import { restErrorDown, restErrorUp } from './errors.js';
import { noTenant } from './jsonrpc.js';
import { isObj, objectAt, rest, Untranslatable, type Obj } from './shapes.js';

/** The route's tail in 1.0 spelling, from the operation and its ids. */
function tail(op: Operation, taskId: string, configId: string, to: ProtocolVersion): string {
  const task = `/tasks/${encodeURIComponent(taskId)}`;
  switch (op) {
    case 'SendMessage':
      return '/message:send';
    case 'SendStreamingMessage':
      return '/message:stream';
    case 'GetTask':
      return task;
    case 'CancelTask':
      return `${task}:cancel`;
    case 'SubscribeToTask':
      return `${task}:subscribe`;
    case 'CreateTaskPushNotificationConfig':
    case 'ListTaskPushNotificationConfigs':
      return `${task}/pushNotificationConfigs`;
    case 'GetTaskPushNotificationConfig':
    case 'DeleteTaskPushNotificationConfig':
      return `${task}/pushNotificationConfigs/${encodeURIComponent(configId)}`;
    case 'GetExtendedAgentCard':
      return to === '0.3' ? '/card' : '/extendedAgentCard';
    default:
      throw new Untranslatable(op, `A2A ${to} has no such operation`, true);
  }
}

/** The path (and query) of a REST call in the agent's version; undefined: not a route. */
export function restPath(method: string, pathAndQuery: string, to: ProtocolVersion): string | undefined {
  const q = pathAndQuery.indexOf('?');
  const path = q === -1 ? pathAndQuery : pathAndQuery.slice(0, q);
  const query = q === -1 ? '' : pathAndQuery.slice(q);
  const route = matchRestRoute(method, path);
  if (!route) return undefined;
  const route03 = to === '0.3' ? '/v1' : '';
  return `${route.prefix}${route03}${tail(route.operation, route.taskId ?? '', route.configId ?? '', to)}${query}`;
}

/** A REST call's JSON body in the agent's version (`taskId`: the route's, for push configs). */
export function restRequest(body: unknown, op: Operation, to: ProtocolVersion, taskId: string | undefined): unknown {
  if (body === undefined) return undefined;
  const dir = to === '0.3' ? 'down' : 'up';
  const model = rest03[dir];
  const b = to === '0.3' ? noTenant(objectAt(body, 'body'), 'body') : objectAt(body, 'body');
  switch (op) {
    case 'SendMessage':
    case 'SendStreamingMessage': {
      const out: Obj = { ...rest(b, ['request']), message: model.message(b['message'] ?? b['request'], 'message') };
      // Down, a send without configuration gets one: its blocking default written out (rest03.ts).
      const config = b['configuration'] ?? (dir === 'down' && op === 'SendMessage' ? {} : undefined);
      if (config !== undefined) out['configuration'] = model.sendConfiguration(config, 'configuration');
      return out;
    }
    case 'CreateTaskPushNotificationConfig':
      return dir === 'down' ? createDown(b, taskId ?? '') : createUp(b, taskId);
    default:
      return b;
  }
}

/** 1.0 flat config → the 0.3 proto's CreateTaskPushNotificationConfigRequest. */
function createDown(b: Obj, taskId: string): Obj {
  const config = rest03.down.taskPushConfig({ ...b, taskId }, 'body');
  const out: Obj = { parent: `tasks/${taskId}`, config };
  if (typeof b['id'] === 'string') out['configId'] = b['id'];
  return out;
}

/** Either 0.3 body (the proto's `{parent, configId, config}`, or the 0.3 SDK client's bare config) → 1.0 flat. */
function createUp(b: Obj, taskId: string | undefined): Obj {
  const config = isObj(b['config']) ? b['config'] : b;
  const flat = rest03.up.taskPushConfig(config, 'body');
  if (flat['id'] === undefined && typeof b['configId'] === 'string' && b['configId'] !== '') flat['id'] = b['configId'];
  return { ...flat, taskId: taskId ?? flat['taskId'] };
}

/** A REST answer body (unary, or one SSE event's data), `to` the caller's version. */
export function restAnswer(body: unknown, op: Operation, to: ProtocolVersion, httpStatus: number): unknown {
  if (httpStatus >= 400) return to === '1.0' ? restErrorUp(body, httpStatus) : restErrorDown(body);
  const model = rest03[to === '0.3' ? 'down' : 'up'];
  switch (op) {
    case 'SendMessage':
    case 'SendStreamingMessage':
    case 'SubscribeToTask':
      return streamResponse(body, to);
    case 'GetTask':
    case 'CancelTask':
      return model.task(body, 'body');
    case 'CreateTaskPushNotificationConfig':
    case 'GetTaskPushNotificationConfig':
      return model.taskPushConfig(body, 'body');
    case 'ListTaskPushNotificationConfigs': {
      const b = objectAt(body, 'body');
      const configs = Array.isArray(b['configs']) ? b['configs'] : [];
      return { ...b, configs: configs.map((c, i) => model.taskPushConfig(c, `body.configs[${i}]`)) };
    }
    case 'GetExtendedAgentCard':
      return translateCard(body, to);
    case 'ListTasks':
      // A 1.0 ListTasksResponse has no 0.3 spelling (its route has none either, restPath).
      if (to === '0.3') throw new Untranslatable(op, 'A2A 0.3 has no such operation', true);
      return body;
    default:
      return body;
  }
}

/** `{task | message | statusUpdate | artifactUpdate}` in both versions (0.3's proto calls `message` `msg`). */
function streamResponse(body: unknown, to: ProtocolVersion): Obj {
  const b = objectAt(body, 'body');
  const model = rest03[to === '0.3' ? 'down' : 'up'];
  if (b['task'] !== undefined) return { ...b, task: model.task(b['task'], 'task') };
  const msg = b['message'] ?? (to === '1.0' ? b['msg'] : undefined);
  if (msg !== undefined) return { ...rest(b, ['msg']), message: model.message(msg, 'message') };
  if (b['statusUpdate'] !== undefined)
    return { ...b, statusUpdate: model.statusUpdate(b['statusUpdate'], 'statusUpdate') };
  if (b['artifactUpdate'] !== undefined) {
    return { ...b, artifactUpdate: model.artifactUpdate(b['artifactUpdate'], 'artifactUpdate') };
  }
  throw new Untranslatable('body', `no ${to} counterpart for ${JSON.stringify(Object.keys(b))}`);
}
