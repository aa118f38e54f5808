// The task operations as they look on the wire, per protocol version and binding, so a test can
// send exactly the same request for two task ids (another principal's task, a never-seen one).
import { randomUUID } from 'node:crypto';
import { rpc, wireMessageV03, wireMessageV1, V1, type RawCall } from './harness.js';

export type Version = '1.0' | '0.3';
export type Binding = 'jsonrpc' | 'rest';

export const TASK_OPS = [
  'GetTask',
  'CancelTask',
  'SubscribeToTask',
  'SendMessage',
  'SendStreamingMessage',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
] as const;
export type TaskOp = (typeof TASK_OPS)[number];

export interface WireCall {
  readonly url: string;
  readonly opts: RawCall;
}

/** Where an agent's endpoints are through the gateway (the test peers mount them at /a2a/…). */
export function endpoints(gatewayUrl: string, agent: string) {
  const base = `${gatewayUrl}/agents/${agent}`;
  return { base: `${base}/`, jsonrpc: `${base}/a2a/jsonrpc`, rest: `${base}/a2a/rest` };
}

const SSE = { accept: 'text/event-stream' };
const RPC_ID = 7;

/** `op` on task `taskId`, as an SDK client of `version` sends it over `binding`. */
export function taskCall(
  agentUrls: ReturnType<typeof endpoints>,
  version: Version,
  binding: Binding,
  op: TaskOp,
  taskId: string,
): WireCall {
  const id = encodeURIComponent(taskId);
  if (version === '1.0' && binding === 'jsonrpc') {
    const post = (method: string, params: unknown, extra: Record<string, string> = {}): WireCall => ({
      url: agentUrls.jsonrpc,
      opts: { body: rpc(method, params, RPC_ID), headers: { ...V1, ...extra } },
    });
    switch (op) {
      case 'GetTask':
        return post('GetTask', { id: taskId });
      case 'CancelTask':
        return post('CancelTask', { id: taskId });
      case 'SubscribeToTask':
        return post('SubscribeToTask', { id: taskId }, SSE);
      case 'SendMessage':
        return post('SendMessage', { message: wireMessageV1('more details', taskId) });
      case 'SendStreamingMessage':
        return post('SendStreamingMessage', { message: wireMessageV1('more details', taskId) }, SSE);
      case 'GetTaskPushNotificationConfig':
        return post('GetTaskPushNotificationConfig', { taskId, id: 'cfg-1' });
      case 'ListTaskPushNotificationConfigs':
        return post('ListTaskPushNotificationConfigs', { taskId });
    }
  }
  if (version === '0.3' && binding === 'jsonrpc') {
    const post = (method: string, params: unknown, extra: Record<string, string> = {}): WireCall => ({
      url: agentUrls.jsonrpc,
      opts: { body: rpc(method, params, RPC_ID), headers: extra },
    });
    switch (op) {
      case 'GetTask':
        return post('tasks/get', { id: taskId });
      case 'CancelTask':
        return post('tasks/cancel', { id: taskId });
      case 'SubscribeToTask':
        return post('tasks/resubscribe', { id: taskId }, SSE);
      case 'SendMessage':
        return post('message/send', { message: wireMessageV03('more details', taskId) });
      case 'SendStreamingMessage':
        return post('message/stream', { message: wireMessageV03('more details', taskId) }, SSE);
      case 'GetTaskPushNotificationConfig':
        return post('tasks/pushNotificationConfig/get', { id: taskId, pushNotificationConfigId: 'cfg-1' });
      case 'ListTaskPushNotificationConfigs':
        return post('tasks/pushNotificationConfig/list', { id: taskId });
    }
  }
  // REST: 1.0 routes at the interface URL, 0.3 ones below `/v1` (0.3 bodies in proto JSON).
  const rest = version === '1.0' ? agentUrls.rest : `${agentUrls.rest}/v1`;
  const headers = version === '1.0' ? { ...V1 } : {};
  switch (op) {
    case 'GetTask':
      return { url: `${rest}/tasks/${id}`, opts: { headers } };
    case 'CancelTask':
      return { url: `${rest}/tasks/${id}:cancel`, opts: { method: 'POST', body: {}, headers } };
    case 'SubscribeToTask':
      return {
        url: `${rest}/tasks/${id}:subscribe`,
        opts: { method: 'POST', body: {}, headers: { ...headers, ...SSE } },
      };
    case 'SendMessage':
    case 'SendStreamingMessage': {
      const message =
        version === '1.0' ? wireMessageV1('more details', taskId) : restMessageV03('more details', taskId);
      return op === 'SendMessage'
        ? { url: `${rest}/message:send`, opts: { body: { message }, headers } }
        : { url: `${rest}/message:stream`, opts: { body: { message }, headers: { ...headers, ...SSE } } };
    }
    case 'GetTaskPushNotificationConfig':
      return { url: `${rest}/tasks/${id}/pushNotificationConfigs/cfg-1`, opts: { headers } };
    case 'ListTaskPushNotificationConfigs':
      return { url: `${rest}/tasks/${id}/pushNotificationConfigs`, opts: { headers } };
  }
}

/** A 0.3 message as the 0.3 REST binding spells it (proto JSON: `content`, `ROLE_USER`). */
export function restMessageV03(text: string, taskId?: string): Record<string, unknown> {
  return { messageId: randomUUID(), role: 'ROLE_USER', content: [{ text }], ...(taskId ? { taskId } : {}) };
}
