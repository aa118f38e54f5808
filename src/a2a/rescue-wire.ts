/**
 * The A2A wire shapes the timeout rescue reads and writes on the HTTP bindings (pure). A blocking
 * SendMessage (decision.ts) is turned into a non-blocking one, followed with GetTask /
 * SubscribeToTask in the caller's own binding and version, and answered with the caller's envelope holding the final
 * Task. Shapes: wire-reference §1.1 (JSON-RPC), §1.2 (REST), §2.4 (SendMessageResponse),
 * §6.2–§6.4 (0.3 method names, `kind`, `/v1/` routes), §5.1 (returnImmediately vs blocking).
 */
import type { TaskState } from './task-state.js';
import { readPayload } from './payload.js';
import type { Binding, JsonBinding, ProtocolVersion } from './operations.js';

/** A blocking SendMessage the rescue takes, as far as its waiting and its answer need to know. */
export interface BlockingSend {
  readonly binding: Binding;
  /** The version the send is written in (`RequestFacts.wireVersion`): the agent reads it so,
   * and the rescue's own calls and its answer are written in it. */
  readonly version: ProtocolVersion;
  /** JSON-RPC `id` of the send (null for the other bindings, or an id that is not a scalar). */
  readonly jsonrpcId: string | number | null;
  readonly historyLength?: number;
  readonly tenant?: string;
  /** The caller used application/a2a+json: the rescue's answer is written in it (content-type.ts). */
  readonly a2aJson?: boolean;
  /** The message continues an existing task (e.g. answers INPUT_REQUIRED): settle.ts. */
  readonly followUp: boolean;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);

/** A blocking send on an HTTP binding, with what it takes to write the rescue's calls. */
export interface HttpSend extends BlockingSend {
  readonly binding: JsonBinding;
  /** Path (with the agent's base) the send went to, without the query. */
  readonly path: string;
  /** The parsed request body: the non-blocking send and the streaming one are made from it. */
  readonly doc: Json;
}

/**
 * The send the rescue decided to take (decision.ts), with its parsed body and path. Undefined
 * when the body is not the object the calls are made from (the request is then forwarded).
 */
export function httpSendOf(send: BlockingSend, document: unknown, path: string): HttpSend | undefined {
  if (send.binding === 'grpc' || !isObject(document)) return undefined;
  if (!isObject(send.binding === 'jsonrpc' ? document['params'] : document)) return undefined;
  return { ...send, binding: send.binding, path: path.split('?')[0]!, doc: document };
}

/** The same send, asking the agent to return right after creating the task. */
export function nonBlockingBody(send: HttpSend): Buffer {
  const params = send.binding === 'jsonrpc' ? (send.doc['params'] as Json) : send.doc;
  const configuration = { ...(isObject(params['configuration']) ? params['configuration'] : {}) };
  if (send.version === '1.0') configuration['returnImmediately'] = true;
  else configuration['blocking'] = false;
  const newParams = { ...params, configuration };
  return Buffer.from(JSON.stringify(send.binding === 'jsonrpc' ? { ...send.doc, params: newParams } : newParams));
}

/** The same send as SendStreamingMessage (the stream's first event names the task). */
export function streamingRequest(send: HttpSend): { path: string; body: Buffer } {
  if (send.binding === 'jsonrpc') {
    const method = send.version === '1.0' ? 'SendStreamingMessage' : 'message/stream';
    return { path: send.path, body: Buffer.from(JSON.stringify({ ...send.doc, method })) };
  }
  return { path: send.path.replace(/message:send$/, 'message:stream'), body: Buffer.from(JSON.stringify(send.doc)) };
}

let requestCounter = 0;
const gatewayRpcId = () => `a2a-gateway-${++requestCounter}`;

export interface UpstreamCall {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly body?: Buffer;
  /** The body's media type; default application/json (the gateway's own calls, §9.1). */
  readonly contentType?: string;
}

/**
 * GetTask in the caller's binding and version, honouring its historyLength. A send without one
 * asks for no limit; so must the GetTask: in 1.0 by leaving it out, in 0.3 by 0, which the 0.3
 * proto defines as unlimited (wire-reference §5.6) — a 0.3 GetTask without it may return no
 * history at all (a2a-js 0.3.14 does).
 */
function historyLengthFor(send: HttpSend): number | undefined {
  return send.historyLength ?? (send.version === '0.3' ? 0 : undefined);
}

/** A JSON-RPC call of the gateway's own, to the endpoint the send went to, with an id of its own. */
function jsonRpcCall(send: HttpSend, method: string, params: Json): UpstreamCall {
  const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: gatewayRpcId(), method, params }));
  return { method: 'POST', path: send.path, body };
}

/**
 * GetTask; with `currentGeneration` (1.0 only), the long-poll of draft 1.1 (wire-reference §7.4:
 * `GetTaskRequest.current_generation`, REST `?currentGeneration=`; int64, so a string in ProtoJSON).
 */
export function getTaskCall(send: HttpSend, taskId: string, currentGeneration?: number): UpstreamCall {
  const historyLength = historyLengthFor(send);
  const since = send.version === '1.0' ? currentGeneration : undefined;
  if (send.binding === 'jsonrpc') {
    const params: Json = { id: taskId };
    if (historyLength !== undefined) params['historyLength'] = historyLength;
    if (send.tenant && send.version === '1.0') params['tenant'] = send.tenant;
    if (since !== undefined) params['currentGeneration'] = String(since);
    return jsonRpcCall(send, send.version === '1.0' ? 'GetTask' : 'tasks/get', params);
  }
  const params = [
    ...(historyLength !== undefined ? [`historyLength=${historyLength}`] : []),
    ...(since !== undefined ? [`currentGeneration=${since}`] : []),
  ];
  const query = params.length > 0 ? `?${params.join('&')}` : '';
  return {
    method: 'GET',
    path: `${send.path.replace(/message:send$/, `tasks/${encodeURIComponent(taskId)}`)}${query}`,
  };
}

/** SubscribeToTask (0.3 tasks/resubscribe); REST uses POST as spec §11.3.2 says (GET is the fallback). */
export function subscribeCall(send: HttpSend, taskId: string, verb: 'GET' | 'POST' = 'POST'): UpstreamCall {
  if (send.binding === 'jsonrpc') {
    const params: Json = { id: taskId };
    if (send.tenant && send.version === '1.0') params['tenant'] = send.tenant;
    return jsonRpcCall(send, send.version === '1.0' ? 'SubscribeToTask' : 'tasks/resubscribe', params);
  }
  return {
    method: verb,
    path: send.path.replace(/message:send$/, `tasks/${encodeURIComponent(taskId)}:subscribe`),
    ...(verb === 'POST' ? { body: Buffer.from('{}') } : {}),
  };
}

export type SendResult =
  | {
      readonly kind: 'task';
      readonly task: Json;
      readonly taskId: string;
      readonly state: TaskState | undefined;
      readonly timestamp?: string;
      readonly generation?: number;
    }
  | { readonly kind: 'message' }
  | { readonly kind: 'error' }
  | { readonly kind: 'other' };

/** The payload's own object: under its member key (1.0 `{task}`, `{statusUpdate}`, …) or bare (0.3 `kind`, a bare Task). */
function payloadObject(at: Json): Json | undefined {
  for (const key of PAYLOAD_MEMBERS) if (key in at) return isObject(at[key]) ? at[key] : undefined;
  return at;
}
const PAYLOAD_MEMBERS = ['task', 'statusUpdate', 'artifactUpdate', 'message', 'msg'] as const;

/**
 * The draft 1.1 `generation` of a Task or update event (wire-reference §7.4): int64, a string in
 * ProtoJSON (a number accepted, as ProtoJSON parsers do). 0 or absent: the agent does not keep
 * one, and its GetTask cannot long-poll.
 */
function generationOf(body: Json | undefined): number | undefined {
  const raw = body?.['generation'];
  const n = typeof raw === 'string' && /^\d{1,15}$/.test(raw) ? Number(raw) : raw;
  return typeof n === 'number' && Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

function timestampOf(body: Json | undefined): string | undefined {
  const status = body && isObject(body['status']) ? body['status'] : undefined;
  return typeof status?.['timestamp'] === 'string' ? status['timestamp'] : undefined;
}

/**
 * What an answer holds, read by the payload decoder every exchange is read with (payload.ts):
 * a Task (with the object itself, the rescue's answer), a Message, an error, or nothing it knows.
 */
function readReply(send: HttpSend, doc: unknown): SendResult {
  if (!isObject(doc)) return { kind: 'other' };
  if ('error' in doc) return { kind: 'error' };
  const root = send.binding === 'jsonrpc' ? 'result' : '';
  const payload = readPayload(doc, root, send.binding);
  if (payload.kind === 'message') return { kind: 'message' };
  if (payload.kind !== 'task' || payload.taskId === undefined) return { kind: 'other' };
  const at = root === '' ? doc : (doc[root] as Json);
  const task = payloadObject(at)!;
  const timestamp = timestampOf(task);
  const generation = generationOf(task);
  return {
    kind: 'task',
    task,
    taskId: payload.taskId,
    state: payload.state,
    ...(timestamp ? { timestamp } : {}),
    ...(generation ? { generation } : {}),
  };
}

/** What a SendMessage response holds (1.0 `{task}`/`{message}` wrapper, 0.3 JSON-RPC `kind`). */
export function readSendResponse(send: HttpSend, doc: unknown): SendResult {
  return readReply(send, doc);
}

/** The Task a GetTask response holds (JSON-RPC `result`, REST bare Task). */
export function readGetTaskResponse(send: HttpSend, doc: unknown): SendResult {
  const read = readReply(send, doc);
  return read.kind === 'message' ? { kind: 'other' } : read;
}

/** The task id and state a stream event carries, if any (1.0 StreamResponse keys, 0.3 `kind`). */
export function readStreamEvent(
  send: HttpSend,
  doc: unknown,
): {
  taskId?: string;
  state?: TaskState;
  timestamp?: string;
  generation?: number;
  task?: Json;
  error?: true;
  message?: true;
} {
  if (!isObject(doc)) return {};
  if ('error' in doc) return { error: true };
  const root = send.binding === 'jsonrpc' ? 'result' : '';
  const at = root === '' ? doc : doc[root];
  if (!isObject(at)) return {};
  const payload = readPayload(doc, root, send.binding);
  if (payload.kind === 'message') return { message: true };
  if (payload.kind === undefined) return {};
  const body = payloadObject(at);
  const { taskId, state } = payload;
  const timestamp = state ? timestampOf(body) : undefined;
  const generation = generationOf(body);
  return {
    ...(taskId !== undefined ? { taskId } : {}),
    ...(state ? { state } : {}),
    ...(timestamp ? { timestamp } : {}),
    ...(generation ? { generation } : {}),
    ...(payload.kind === 'task' && body ? { task: body } : {}),
  };
}

/** The caller's SendMessage envelope (as the agent first answered it) with `task` in place. */
export function withTask(send: HttpSend, envelope: Json, task: Json): Buffer {
  if (send.binding === 'jsonrpc') {
    const result = send.version === '0.3' ? task : { ...(envelope['result'] as Json), task };
    return Buffer.from(JSON.stringify({ ...envelope, result }));
  }
  return Buffer.from(JSON.stringify({ ...envelope, task }));
}
