/**
 * Hand-written facts for every recorded exchange in test/fixtures/captures (push deliveries
 * excepted: they are not proxied requests). Written from reading the files, not from running
 * the decoders. Ids are whatever the recording produced, so only their presence is checked.
 */
import type { Operation, ProtocolVersion } from '../../src/a2a/operations.js';
import type { TaskState } from '../../src/a2a/task-state.js';
import type { RuleId } from '../../src/a2a/findings.js';
import type { StreamClosure, StreamEventKind, ResponseTag } from '../../src/a2a/response.js';
import type { VersionSignal } from '../../src/a2a/version.js';

export interface ExpectedRequest {
  op: Operation;
  binding: 'jsonrpc' | 'rest' | 'unknown';
  version: ProtocolVersion;
  signal: VersionSignal;
  blocking?: boolean;
  taskId?: boolean;
  historyLength?: number;
  tenant?: string;
  pushUrl?: boolean;
  malformed?: boolean;
  idPresent?: boolean;
}

export interface ExpectedResponse {
  tag: ResponseTag;
  state?: TaskState;
  taskId?: boolean;
  artifacts?: number;
  history?: number;
  error?: { code?: number; reason?: string; httpStatus?: number };
  events?: Partial<Record<StreamEventKind, number>>;
  closure?: StreamClosure;
  finalFlag?: boolean;
}

export interface Expected {
  req: ExpectedRequest;
  res?: ExpectedResponse;
  /** All findings of request and response together; none when omitted. */
  findings?: RuleId[];
}

const rpc10 = (op: Operation, more: Partial<ExpectedRequest> = {}): ExpectedRequest => ({
  op,
  binding: 'jsonrpc',
  version: '1.0',
  signal: 'header',
  ...more,
});
const rpc03 = (op: Operation, more: Partial<ExpectedRequest> = {}): ExpectedRequest => ({
  op,
  binding: 'jsonrpc',
  version: '0.3',
  signal: 'jsonrpc-method',
  ...more,
});
const rest10 = (op: Operation, more: Partial<ExpectedRequest> = {}): ExpectedRequest => ({
  op,
  binding: 'rest',
  version: '1.0',
  signal: 'header',
  ...more,
});
const rest03 = (op: Operation, more: Partial<ExpectedRequest> = {}): ExpectedRequest => ({
  op,
  binding: 'rest',
  version: '0.3',
  signal: 'rest-path',
  ...more,
});
const card = (version: ProtocolVersion): ExpectedRequest => ({
  op: 'AgentCard',
  binding: 'rest',
  version,
  signal: version === '1.0' ? 'header' : 'default',
});

const COMPLETED = 'TASK_STATE_COMPLETED';
const task = (state: TaskState, more: Partial<ExpectedResponse> = {}): ExpectedResponse => ({
  tag: 'task',
  state,
  taskId: true,
  ...more,
});
const message: ExpectedResponse = { tag: 'message' };
const other: ExpectedResponse = { tag: 'other' };
const rpcError = (code: number, reason?: string): ExpectedResponse => ({ tag: 'error', error: { code, reason } });
const restError = (httpStatus: number, reason: string): ExpectedResponse => ({
  tag: 'error',
  error: { httpStatus, reason },
});
const fullTaskStream = { tag: 'task', state: COMPLETED, taskId: true, closure: 'terminal' } as const;

export const EXPECTED: Readonly<Record<string, Expected>> = {
  // ---- A2A 0.3 server (SDK 0.3.14), JSON-RPC: `kind`, lowercase states, `final` ----
  'v03--jsonrpc-cancel-completed.http': { req: rpc03('CancelTask', { taskId: true }), res: rpcError(-32002) },
  'v03--jsonrpc-cancel.http': {
    req: rpc03('CancelTask', { taskId: true }),
    res: task('TASK_STATE_CANCELED', { artifacts: 1, history: 3 }),
  },
  'v03--jsonrpc-card.http': { req: card('0.3'), res: other },
  // 0.3: historyLength 0 meant "unlimited", so three messages are fine (wire-reference §5.6).
  'v03--jsonrpc-get-task-history0.http': {
    req: rpc03('GetTask', { taskId: true, historyLength: 0 }),
    res: task(COMPLETED, { artifacts: 1, history: 3 }),
  },
  'v03--jsonrpc-get-task-no-history-param.http': {
    req: rpc03('GetTask', { taskId: true }),
    res: task(COMPLETED, { artifacts: 1, history: 0 }),
  },
  'v03--jsonrpc-get-unknown-task.http': { req: rpc03('GetTask', { taskId: true }), res: rpcError(-32001) },
  'v03--jsonrpc-resubscribe-completed.http': {
    req: rpc03('SubscribeToTask', { taskId: true }),
    res: { ...fullTaskStream, events: { task: 1 }, finalFlag: false },
  },
  'v03--jsonrpc-resubscribe.http': {
    req: rpc03('SubscribeToTask', { taskId: true }),
    res: { ...fullTaskStream, events: { task: 1, artifactUpdate: 1, statusUpdate: 1 }, finalFlag: true },
  },
  'v03--jsonrpc-send-blocking.http': {
    req: rpc03('SendMessage', { blocking: true }),
    res: task(COMPLETED, { artifacts: 1, history: 3 }),
  },
  'v03--jsonrpc-send-fail.http': {
    req: rpc03('SendMessage', { blocking: true }),
    res: task('TASK_STATE_FAILED', { history: 2 }),
  },
  'v03--jsonrpc-send-needs-input.http': {
    req: rpc03('SendMessage', { blocking: true }),
    res: task('TASK_STATE_INPUT_REQUIRED', { artifacts: 0, history: 2 }),
  },
  'v03--jsonrpc-send-non-blocking.http': {
    req: rpc03('SendMessage', { blocking: false }),
    res: task('TASK_STATE_WORKING', { artifacts: 0, history: 2 }),
  },
  'v03--jsonrpc-send-question.http': { req: rpc03('SendMessage', { blocking: true }), res: message },
  // 0.3.14 forwards a late artifact and a status update after `completed` (README).
  'v03--jsonrpc-send-streaming-misbehave.http': {
    req: rpc03('SendStreamingMessage'),
    res: {
      tag: 'task',
      state: 'TASK_STATE_WORKING',
      taskId: true,
      events: { task: 1, statusUpdate: 2, artifactUpdate: 1 },
      closure: 'open',
      finalFlag: true,
    },
    findings: ['a2a.stream-event-after-terminal'],
  },
  'v03--jsonrpc-send-streaming.http': {
    req: rpc03('SendStreamingMessage'),
    res: { ...fullTaskStream, events: { task: 1, statusUpdate: 2, artifactUpdate: 2 }, finalFlag: true },
  },
  'v03--jsonrpc-send-with-push-config.http': {
    req: rpc03('SendMessage', { blocking: false, pushUrl: true }),
    res: task('TASK_STATE_WORKING', { artifacts: 0, history: 2 }),
    findings: ['a2a.push-url-private'],
  },

  // ---- A2A 0.3 server, REST: /v1/ paths, proto JSON (`content`, TASK_STATE_CANCELLED) ----
  'v03--rest-cancel-completed.http': {
    req: rest03('CancelTask', { taskId: true }),
    res: { tag: 'error', error: { code: -32002, httpStatus: 409 } },
  },
  'v03--rest-cancel.http': {
    req: rest03('CancelTask', { taskId: true }),
    res: task('TASK_STATE_CANCELED', { artifacts: 1, history: 3 }),
  },
  'v03--rest-get-unknown-task.http': {
    req: rest03('GetTask', { taskId: true }),
    res: { tag: 'error', error: { code: -32001, httpStatus: 404 } },
  },
  'v03--rest-resubscribe-completed.http': {
    req: rest03('SubscribeToTask', { taskId: true }),
    res: { ...fullTaskStream, events: { task: 1 } },
  },
  'v03--rest-send-blocking.http': {
    req: rest03('SendMessage', { blocking: true }),
    res: task(COMPLETED, { artifacts: 1, history: 3 }),
  },
  'v03--rest-send-question.http': { req: rest03('SendMessage', { blocking: true }), res: message },
  'v03--rest-send-streaming.http': {
    req: rest03('SendStreamingMessage'),
    res: { ...fullTaskStream, events: { task: 1, statusUpdate: 2, artifactUpdate: 2 }, finalFlag: true },
  },

  // ---- A2A 1.0 server (SDK 1.3.0), edge cases sent with curl ----
  'v1--edge-card-if-none-match.http': { req: card('0.3'), res: other },
  'v1--edge-card-legacy-path.http': { req: card('0.3'), res: { tag: 'error', error: { httpStatus: 404 } } },
  'v1--edge-card-no-header.http': { req: card('0.3'), res: other },
  'v1--edge-rest-content-type-text.http': {
    req: rest10('SendMessage', { blocking: true }),
    res: restError(400, 'CONTENT_TYPE_NOT_SUPPORTED'),
  },
  'v1--edge-rest-history-negative.http': {
    req: rest10('GetTask', { taskId: true, historyLength: -1 }),
    res: restError(400, 'INVALID_PARAMS'),
  },
  'v1--edge-rest-invalid-json.http': {
    req: rest10('SendMessage', { malformed: true }),
    res: restError(400, 'INVALID_PARAMS'),
    findings: ['a2a.invalid-json'],
  },
  'v1--edge-rest-list-tasks-bad-page.http': { req: rest10('ListTasks'), res: restError(400, 'INVALID_PARAMS') },
  // 1.0 path and body but no A2A-Version: the server treats it as 0.3 (§3.6.1).
  'v1--edge-rest-no-version-header.http': {
    req: rest10('SendMessage', { signal: 'rest-path', blocking: true }),
    res: restError(400, 'VERSION_NOT_SUPPORTED'),
    findings: ['a2a.version-header-missing'],
  },
  'v1--edge-rest-subscribe-GET.http': {
    req: rest10('SubscribeToTask', { taskId: true }),
    res: { ...fullTaskStream, events: { task: 1, artifactUpdate: 1, statusUpdate: 1 } },
  },
  'v1--edge-rest-subscribe-get-unknown.http': {
    req: rest10('SubscribeToTask', { taskId: true }),
    res: restError(404, 'TASK_NOT_FOUND'),
  },
  'v1--edge-rest-tenant-path.http': { req: rest10('SendMessage', { tenant: 'acme', blocking: true }), res: message },
  'v1--edge-rest-unknown-path.http': {
    req: { op: 'unknown', binding: 'unknown', version: '1.0', signal: 'header' },
    res: { tag: 'error', error: { httpStatus: 404 } },
    findings: ['a2a.unknown-operation'],
  },
  'v1--edge-rest-v03-path.http': {
    req: rest10('SendMessage', { blocking: true }),
    res: message,
    findings: ['a2a.version-signals-disagree'],
  },
  'v1--edge-rest-version-1.0.0.http': {
    req: rest10('SendMessage', { blocking: true }),
    res: restError(400, 'VERSION_NOT_SUPPORTED'),
    findings: ['a2a.version-patch-sent'],
  },
  // Refused before parsing, so the error carries id null: allowed (JSON-RPC 2.0 §5).
  'v1--edge-rpc-a2a-json-content-type.http': {
    req: rpc10('GetTask', { taskId: true }),
    res: rpcError(-32005, 'CONTENT_TYPE_NOT_SUPPORTED'),
  },
  'v1--edge-rpc-batch.http': {
    req: rpc10('unknown'),
    res: rpcError(-32602, 'INVALID_PARAMS'),
    findings: ['a2a.jsonrpc-batch'],
  },
  'v1--edge-rpc-content-type-text.http': {
    req: rpc10('GetTask', { taskId: true }),
    res: rpcError(-32005, 'CONTENT_TYPE_NOT_SUPPORTED'),
  },
  'v1--edge-rpc-enum-lowercase-role.http': {
    req: rpc10('SendMessage', { blocking: true }),
    res: message,
    findings: ['a2a.version-signals-disagree'],
  },
  'v1--edge-rpc-extended-card.http': {
    req: rpc10('GetExtendedAgentCard'),
    res: rpcError(-32004, 'UNSUPPORTED_OPERATION'),
  },
  'v1--edge-rpc-get-after-disconnect.http': {
    req: rpc10('GetTask', { taskId: true, historyLength: 0 }),
    res: task(COMPLETED, { artifacts: 1 }),
  },
  'v1--edge-rpc-get-on-endpoint.http': {
    req: { op: 'unknown', binding: 'unknown', version: '1.0', signal: 'header' },
    res: { tag: 'error', error: { httpStatus: 404 } },
    findings: ['a2a.unknown-operation'],
  },
  'v1--edge-rpc-invalid-json.http': {
    req: rpc10('unknown', { malformed: true }),
    res: rpcError(-32700),
    findings: ['a2a.invalid-json'],
  },
  'v1--edge-rpc-missing-params.http': {
    req: rpc10('GetTask', { taskId: false }),
    res: rpcError(-32602, 'INVALID_PARAMS'),
  },
  'v1--edge-rpc-no-version-header.http': {
    req: rpc10('SendMessage', { signal: 'jsonrpc-method', blocking: true }),
    res: rpcError(-32009, 'VERSION_NOT_SUPPORTED'),
    findings: ['a2a.version-header-missing'],
  },
  'v1--edge-rpc-notification-no-id.http': {
    req: rpc10('GetTask', { taskId: true, idPresent: false }),
    res: rpcError(-32001, 'TASK_NOT_FOUND'),
  },
  'v1--edge-rpc-stream-accept-json.http': {
    req: rpc10('SendStreamingMessage'),
    res: { ...fullTaskStream, events: { task: 1, statusUpdate: 2, artifactUpdate: 2 } },
  },
  'v1--edge-rpc-stream-client-disconnect.http': {
    req: rpc10('SendStreamingMessage'),
    res: {
      tag: 'task',
      state: 'TASK_STATE_WORKING',
      taskId: true,
      events: { task: 1, statusUpdate: 1, artifactUpdate: 1 },
      closure: 'aborted',
    },
  },
  'v1--edge-rpc-stream-input-required.http': {
    req: rpc10('SendStreamingMessage'),
    res: {
      tag: 'task',
      state: 'TASK_STATE_INPUT_REQUIRED',
      taskId: true,
      events: { task: 1, statusUpdate: 1 },
      closure: 'interrupted',
    },
  },
  // SDK 1.3.0 drops what the agent publishes after the terminal event: nothing to report.
  'v1--edge-rpc-stream-misbehave-after-terminal.http': {
    req: rpc10('SendStreamingMessage'),
    res: { ...fullTaskStream, events: { task: 1, statusUpdate: 1 } },
  },
  'v1--edge-rpc-subscribe-unknown-task.http': {
    req: rpc10('SubscribeToTask', { taskId: true }),
    res: rpcError(-32001, 'TASK_NOT_FOUND'),
  },
  'v1--edge-rpc-unknown-method.http': {
    req: rpc10('unknown'),
    res: rpcError(-32601),
    findings: ['a2a.unknown-operation'],
  },
  'v1--edge-rpc-v03-method-name-with-v1-header.http': {
    req: rpc10('SendMessage', { blocking: true }),
    res: rpcError(-32601),
    findings: ['a2a.version-signals-disagree'],
  },
  'v1--edge-rpc-v03-part-shape.http': {
    req: rpc10('SendMessage', { blocking: true }),
    res: message,
    findings: ['a2a.version-signals-disagree'],
  },
  'v1--edge-rpc-version-1.0.0.http': {
    req: rpc10('SendMessage', { blocking: true }),
    res: rpcError(-32009, 'VERSION_NOT_SUPPORTED'),
    findings: ['a2a.version-patch-sent'],
  },
  'v1--edge-rpc-version-query-param.http': {
    req: rpc10('SendMessage', { signal: 'query', blocking: true }),
    res: rpcError(-32009, 'VERSION_NOT_SUPPORTED'),
  },

  // ---- A2A 1.0 server and client (SDK 1.3.0), JSON-RPC ----
  'v1--jsonrpc-cancel-again.http': {
    req: rpc10('CancelTask', { taskId: true }),
    res: task('TASK_STATE_CANCELED', { artifacts: 1, history: 3 }),
  },
  'v1--jsonrpc-cancel-completed.http': {
    req: rpc10('CancelTask', { taskId: true }),
    res: rpcError(-32002, 'TASK_NOT_CANCELABLE'),
  },
  'v1--jsonrpc-cancel.http': {
    req: rpc10('CancelTask', { taskId: true }),
    res: task('TASK_STATE_CANCELED', { artifacts: 1, history: 3 }),
  },
  'v1--jsonrpc-card.http': { req: card('1.0'), res: other },
  'v1--jsonrpc-get-task-history0.http': {
    req: rpc10('GetTask', { taskId: true, historyLength: 0 }),
    res: task(COMPLETED, { artifacts: 1 }),
  },
  'v1--jsonrpc-get-task-poll.http': {
    req: rpc10('GetTask', { taskId: true, historyLength: 1 }),
    res: task('TASK_STATE_WORKING', { artifacts: 1, history: 1 }),
  },
  'v1--jsonrpc-get-unknown-task.http': {
    req: rpc10('GetTask', { taskId: true }),
    res: rpcError(-32001, 'TASK_NOT_FOUND'),
  },
  'v1--jsonrpc-list-push-configs.http': { req: rpc10('ListTaskPushNotificationConfigs', { taskId: true }), res: other },
  'v1--jsonrpc-list-tasks.http': { req: rpc10('ListTasks', { historyLength: 0 }), res: other },
  'v1--jsonrpc-send-blocking.http': {
    req: rpc10('SendMessage', { blocking: true }),
    res: task(COMPLETED, { artifacts: 1, history: 3 }),
  },
  'v1--jsonrpc-send-fail.http': {
    req: rpc10('SendMessage', { blocking: true }),
    res: task('TASK_STATE_FAILED', { history: 2 }),
  },
  'v1--jsonrpc-send-follow-up.http': {
    req: rpc10('SendMessage', { blocking: true, taskId: true }),
    res: task(COMPLETED, { artifacts: 1, history: 5 }),
  },
  'v1--jsonrpc-send-for-cancel.http': {
    req: rpc10('SendMessage', { blocking: false }),
    res: task('TASK_STATE_SUBMITTED', { history: 1 }),
  },
  'v1--jsonrpc-send-for-subscribe.http': {
    req: rpc10('SendMessage', { blocking: false }),
    res: task('TASK_STATE_SUBMITTED', { history: 1 }),
  },
  'v1--jsonrpc-send-needs-input.http': {
    req: rpc10('SendMessage', { blocking: true }),
    res: task('TASK_STATE_INPUT_REQUIRED', { history: 2 }),
  },
  'v1--jsonrpc-send-question.http': { req: rpc10('SendMessage', { blocking: true }), res: message },
  'v1--jsonrpc-send-return-immediately.http': {
    req: rpc10('SendMessage', { blocking: false }),
    res: task('TASK_STATE_SUBMITTED', { history: 1 }),
  },
  'v1--jsonrpc-send-streaming-fail.http': {
    req: rpc10('SendStreamingMessage'),
    res: {
      tag: 'task',
      state: 'TASK_STATE_FAILED',
      taskId: true,
      events: { task: 1, statusUpdate: 1 },
      closure: 'terminal',
    },
  },
  'v1--jsonrpc-send-streaming-multi.http': {
    req: rpc10('SendStreamingMessage'),
    res: { ...fullTaskStream, events: { task: 1, statusUpdate: 2, artifactUpdate: 2 } },
  },
  'v1--jsonrpc-send-streaming-question.http': {
    req: rpc10('SendStreamingMessage'),
    res: { tag: 'message', events: { message: 1 }, closure: 'message' },
  },
  'v1--jsonrpc-send-streaming.http': {
    req: rpc10('SendStreamingMessage'),
    res: { ...fullTaskStream, events: { task: 1, statusUpdate: 2, artifactUpdate: 2 } },
  },
  'v1--jsonrpc-send-timeout.http': { req: rpc10('SendMessage', { blocking: true }) },
  'v1--jsonrpc-send-to-completed-task.http': {
    req: rpc10('SendMessage', { blocking: true, taskId: true }),
    res: rpcError(-32004, 'UNSUPPORTED_OPERATION'),
  },
  'v1--jsonrpc-send-with-push-config.http': {
    req: rpc10('SendMessage', { blocking: false, pushUrl: true }),
    res: task('TASK_STATE_SUBMITTED', { history: 1 }),
    findings: ['a2a.push-url-private'],
  },
  'v1--jsonrpc-subscribe-completed.http': {
    req: rpc10('SubscribeToTask', { taskId: true }),
    res: rpcError(-32004, 'UNSUPPORTED_OPERATION'),
  },
  // A second task snapshot mid-stream (still INPUT_REQUIRED), then the follow-up completes it.
  'v1--jsonrpc-subscribe-input-required.http': {
    req: rpc10('SubscribeToTask', { taskId: true }),
    res: { ...fullTaskStream, events: { task: 2, statusUpdate: 2, artifactUpdate: 2 } },
  },
  'v1--jsonrpc-subscribe-multi.http': {
    req: rpc10('SubscribeToTask', { taskId: true }),
    res: { ...fullTaskStream, events: { task: 1, artifactUpdate: 1, statusUpdate: 1 } },
  },
  'v1--jsonrpc-subscribe.http': {
    req: rpc10('SubscribeToTask', { taskId: true }),
    res: { ...fullTaskStream, events: { task: 1, artifactUpdate: 1, statusUpdate: 1 } },
  },

  // ---- A2A 1.0, HTTP+JSON ----
  'v1--rest-cancel-completed.http': {
    req: rest10('CancelTask', { taskId: true }),
    res: restError(400, 'TASK_NOT_CANCELABLE'),
  },
  'v1--rest-cancel.http': {
    req: rest10('CancelTask', { taskId: true }),
    res: task('TASK_STATE_CANCELED', { artifacts: 1, history: 3 }),
  },
  'v1--rest-card.http': { req: card('1.0'), res: other },
  'v1--rest-get-task-history0.http': {
    req: rest10('GetTask', { taskId: true, historyLength: 0 }),
    res: task(COMPLETED, { artifacts: 1 }),
  },
  'v1--rest-get-unknown-task.http': { req: rest10('GetTask', { taskId: true }), res: restError(404, 'TASK_NOT_FOUND') },
  'v1--rest-list-tasks.http': { req: rest10('ListTasks', { historyLength: 0 }), res: other },
  'v1--rest-send-blocking.http': {
    req: rest10('SendMessage', { blocking: true }),
    res: task(COMPLETED, { artifacts: 1, history: 3 }),
  },
  'v1--rest-send-fail.http': {
    req: rest10('SendMessage', { blocking: true }),
    res: task('TASK_STATE_FAILED', { history: 2 }),
  },
  'v1--rest-send-question.http': { req: rest10('SendMessage', { blocking: true }), res: message },
  'v1--rest-send-return-immediately.http': {
    req: rest10('SendMessage', { blocking: false }),
    res: task('TASK_STATE_SUBMITTED', { history: 1 }),
  },
  'v1--rest-send-streaming.http': {
    req: rest10('SendStreamingMessage'),
    res: { ...fullTaskStream, events: { task: 1, statusUpdate: 2, artifactUpdate: 2 } },
  },
  'v1--rest-send-with-push-config.http': {
    req: rest10('SendMessage', { blocking: false, pushUrl: true }),
    res: task('TASK_STATE_SUBMITTED', { history: 1 }),
    findings: ['a2a.push-url-private'],
  },
  'v1--rest-subscribe-completed.http': {
    req: rest10('SubscribeToTask', { taskId: true }),
    res: restError(400, 'UNSUPPORTED_OPERATION'),
  },
  'v1--rest-subscribe.http': {
    req: rest10('SubscribeToTask', { taskId: true }),
    res: { ...fullTaskStream, events: { task: 1, artifactUpdate: 1, statusUpdate: 1 } },
  },

  // ---- SDK 1.3.0 server with its 0.3 compatibility layer ----
  'v1compat--v03client-jsonrpc-card.http': { req: card('0.3'), res: other },
  'v1compat--v03client-jsonrpc-get-unknown-task.http': {
    req: rpc03('GetTask', { taskId: true }),
    res: rpcError(-32001),
  },
  'v1compat--v03client-jsonrpc-resubscribe-completed.http': {
    req: rpc03('SubscribeToTask', { taskId: true }),
    res: { tag: 'error', error: { code: -32004 }, events: { error: 1 }, closure: 'error' },
  },
  'v1compat--v03client-jsonrpc-send-non-blocking.http': {
    req: rpc03('SendMessage', { blocking: false }),
    res: task('TASK_STATE_SUBMITTED', { history: 1 }),
  },
  'v1compat--v03client-jsonrpc-send-question.http': { req: rpc03('SendMessage', { blocking: true }), res: message },
  'v1compat--v03client-jsonrpc-send-streaming.http': {
    req: rpc03('SendStreamingMessage'),
    res: { ...fullTaskStream, events: { task: 1, statusUpdate: 2, artifactUpdate: 2 }, finalFlag: true },
  },
  'v1compat--v03client-rest-card.http': { req: card('0.3'), res: other },
  'v1compat--v03client-rest-resubscribe-completed.http': {
    req: rest03('SubscribeToTask', { taskId: true }),
    res: { tag: 'error', error: { code: -32004, httpStatus: 400 } },
  },
  'v1compat--v03client-rest-send-question.http': { req: rest03('SendMessage', { blocking: true }), res: message },
  'v1compat--v03client-rest-send-streaming.http': {
    req: rest03('SendStreamingMessage'),
    res: { ...fullTaskStream, events: { task: 1, statusUpdate: 2, artifactUpdate: 2 }, finalFlag: true },
  },
  'v1compat--v1client-jsonrpc-card.http': { req: card('1.0'), res: other },
  'v1compat--v1client-jsonrpc-send-question.http': { req: rpc10('SendMessage', { blocking: true }), res: message },
};
