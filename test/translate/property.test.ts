/**
 * Properties over generated 1.0 objects (fast-check): Messages with every part kind (text, raw,
 * url, data of any JSON value) with metadata, filenames and media types, every task state, both
 * roles, Tasks with artifacts and history, status and artifact updates, SendMessage requests with
 * configurations and push configs. Each generated object is first checked against the 1.0 proto
 * (strict ProtoJSON), so the generators make only valid 1.0 JSON.
 * - JSON-RPC: down to 0.3 gives a valid 0.3 JSON-RPC object, and up again gives the original
 *   (non-object data parts go down wrapped with `data_part_compat` and come back unwrapped; an
 *   empty metadata on such a part comes back absent, lessEmptyWrappedMetadata).
 * - HTTP+JSON: down to 0.3 gives strict ProtoJSON of the 0.3 proto, and up again gives the
 *   original less what the 0.3 proto has no field for (round-trip.test.ts `rest03-part-members`);
 *   a data part that is not an object is refused.
 * - Push notification configs (create / get / list / delete, both bindings): down and back.
 * - The other way: generated 0.3 objects (JSON-RPC `kind`-tagged, and HTTP+JSON ProtoJSON of the
 *   0.3 proto, file parts with bytes or uri) go up to strict 1.0 ProtoJSON and come back exactly.
 * Seeded: the same cases every run.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rpcAnswer, rpcRequest } from '../../src/translate/jsonrpc.js';
import { restAnswer, restRequest } from '../../src/translate/rest.js';
import { Untranslatable, type Obj } from '../../src/translate/shapes.js';
import { V03, V1 } from './support/check.js';
import * as rpc03 from './support/rpc03-shape.js';

const RUNS = { numRuns: 300, seed: 20261204 } as const;

const STATES = [
  'TASK_STATE_UNSPECIFIED',
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_AUTH_REQUIRED',
];

const id = fc.stringMatching(/^[a-z0-9-]{1,12}$/);
// Keys without `_`: `data_part_compat` is the SDK's wrapper flag (rpc03.ts), a key no 1.0 sender uses.
const key = fc.stringMatching(/^[a-z][a-zA-Z0-9]{0,7}$/);
const json = fc.jsonValue({ maxDepth: 2 });
const metadata = fc.dictionary(key, json, { maxKeys: 3 });
const timestamp = fc
  .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString());
const mediaType = fc.constantFrom('text/plain', 'text/markdown', 'application/json', 'image/png');

const content = fc.oneof(
  fc.record({ text: fc.string() }),
  fc.record({ raw: fc.base64String({ minLength: 4, maxLength: 16 }) }),
  fc.record({ url: fc.webUrl() }),
  fc.record({ data: json }),
);
const part = fc
  .tuple(content, fc.record({ metadata, filename: fc.string({ minLength: 1 }), mediaType }, { requiredKeys: [] }))
  .map(([c, extra]) => ({ ...c, ...extra }));

const message = fc.record(
  {
    messageId: id,
    role: fc.constantFrom('ROLE_USER', 'ROLE_AGENT'),
    parts: fc.array(part, { minLength: 1, maxLength: 3 }),
    contextId: id,
    taskId: id,
    metadata,
    extensions: fc.array(fc.webUrl(), { maxLength: 2 }),
    referenceTaskIds: fc.array(id, { maxLength: 2 }),
  },
  { requiredKeys: ['messageId', 'role', 'parts'] },
);
const status = fc.record({ state: fc.constantFrom(...STATES), message, timestamp }, { requiredKeys: ['state'] });
const artifact = fc.record(
  {
    artifactId: id,
    parts: fc.array(part, { minLength: 1, maxLength: 3 }),
    name: fc.string(),
    description: fc.string(),
    metadata,
    extensions: fc.array(fc.webUrl(), { maxLength: 2 }),
  },
  { requiredKeys: ['artifactId', 'parts'] },
);
const task = fc.record(
  {
    id,
    contextId: id,
    status,
    artifacts: fc.array(artifact, { maxLength: 2 }),
    history: fc.array(message, { maxLength: 2 }),
    metadata,
  },
  { requiredKeys: ['id', 'contextId', 'status'] },
);
const statusUpdate = fc.record(
  { taskId: id, contextId: id, status, metadata },
  { requiredKeys: ['taskId', 'contextId', 'status'] },
);
const artifactUpdate = fc.record(
  { taskId: id, contextId: id, artifact, append: fc.boolean(), lastChunk: fc.boolean(), metadata },
  { requiredKeys: ['taskId', 'contextId', 'artifact'] },
);
/**
 * JSON-RPC: a data part that holds no object goes down as `{value}` with the metadata flag
 * `data_part_compat`; coming up the flag is taken out and a metadata left empty is dropped, so an
 * empty `metadata: {}` on such a part comes back absent (the same Struct to a ProtoJSON reader).
 */
function lessEmptyWrappedMetadata(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(lessEmptyWrappedMetadata);
  if (typeof v !== 'object' || v === null) return v;
  const out: Obj = {};
  for (const [k, x] of Object.entries(v as Obj))
    out[k] = k === 'metadata' || k === 'data' ? x : lessEmptyWrappedMetadata(x);
  const data = out['data'];
  const wrapped = 'data' in out && (typeof data !== 'object' || data === null || Array.isArray(data));
  if (wrapped && typeof out['metadata'] === 'object' && Object.keys(out['metadata'] as Obj).length === 0)
    delete out['metadata'];
  // A 0.3 text part is text/plain by definition: that media type is left out going down (rpc03.ts).
  if (typeof out['text'] === 'string' && out['mediaType'] === 'text/plain') delete out['mediaType'];
  return out;
}

/** A SendMessage comes back with its blocking written out: 0.3 states it always (model.ts). */
function blockingWritten(params: Obj): Obj {
  const configuration = { ...((params['configuration'] as Obj | undefined) ?? {}) };
  configuration['returnImmediately'] ??= false;
  return { ...params, configuration };
}

const streamResponse: fc.Arbitrary<Obj> = fc.oneof(
  task.map((t) => ({ task: t })),
  message.map((m) => ({ message: m })),
  statusUpdate.map((s) => ({ statusUpdate: s })),
  artifactUpdate.map((a) => ({ artifactUpdate: a })),
);
const pushConfig = fc.record(
  {
    url: fc.webUrl(),
    id,
    token: fc.string(),
    authentication: fc.record(
      { scheme: fc.constantFrom('Bearer', 'Basic'), credentials: fc.string() },
      { requiredKeys: ['scheme'] },
    ),
  },
  { requiredKeys: ['url'] },
);
const sendRequest: fc.Arbitrary<Obj> = fc.record(
  {
    message,
    configuration: fc.record(
      {
        acceptedOutputModes: fc.array(mediaType, { maxLength: 2 }),
        taskPushNotificationConfig: pushConfig,
        historyLength: fc.nat({ max: 50 }),
        returnImmediately: fc.boolean(),
      },
      { requiredKeys: [] },
    ),
    metadata,
  },
  { requiredKeys: ['message'] },
);

/** Data parts that hold no object (HTTP+JSON 0.3 has no place for them). */
function hasNonObjectData(v: unknown): boolean {
  if (Array.isArray(v)) return v.some(hasNonObjectData);
  if (typeof v !== 'object' || v === null) return false;
  const o = v as Obj;
  if (
    Array.isArray(o['parts']) &&
    o['parts'].some(
      (p: Obj) => 'data' in p && (typeof p['data'] !== 'object' || p['data'] === null || Array.isArray(p['data'])),
    )
  ) {
    return true;
  }
  return Object.entries(o).some(([k, x]) => k !== 'metadata' && k !== 'data' && hasNonObjectData(x));
}

/** What the 0.3 proto has no field for, removed as the HTTP+JSON translation removes it (rest03.ts). */
function less03(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(less03);
  if (typeof v !== 'object' || v === null) return v;
  const out: Obj = {};
  for (const [k, x] of Object.entries(v as Obj)) out[k] = k === 'metadata' || k === 'data' ? x : less03(x);
  if ('messageId' in out) delete out['referenceTaskIds'];
  if (Array.isArray(out['parts'])) {
    out['parts'] = (out['parts'] as Obj[]).map((p) => {
      const q: Obj = { ...p };
      delete q['metadata'];
      delete q['filename'];
      if (q['raw'] === undefined && q['url'] === undefined) delete q['mediaType'];
      return q;
    });
  }
  return out;
}

describe('generated 1.0 objects, down to 0.3 and back', () => {
  it('the generators make valid 1.0 JSON', () => {
    fc.assert(
      fc.property(streamResponse, sendRequest, (r, q) => {
        V1.check('StreamResponse', r);
        V1.check('SendMessageRequest', q);
      }),
      RUNS,
    );
  });

  it('JSON-RPC stream events: valid 0.3, and back to the original', () => {
    fc.assert(
      fc.property(streamResponse, (r) => {
        const doc = { jsonrpc: '2.0', id: 7, result: r };
        const down = rpcAnswer(structuredClone(doc), 'SendStreamingMessage', '0.3');
        rpc03.response(down, 'message/stream');
        expect(rpcAnswer(down, 'SendStreamingMessage', '1.0')).toEqual(lessEmptyWrappedMetadata(doc));
      }),
      RUNS,
    );
  });

  it('JSON-RPC SendMessage requests: valid 0.3, and back to the original', () => {
    fc.assert(
      fc.property(sendRequest, (params) => {
        const doc = { jsonrpc: '2.0', id: 'r1', method: 'SendMessage', params };
        const down = rpcRequest(structuredClone(doc), 'SendMessage', '0.3');
        rpc03.request(down);
        expect(rpcRequest(down, 'SendMessage', '1.0')).toEqual(
          lessEmptyWrappedMetadata({ ...doc, params: blockingWritten(params) }),
        );
      }),
      RUNS,
    );
  });

  it('JSON-RPC GetTask answers: valid 0.3, and back to the original', () => {
    fc.assert(
      fc.property(task, (t) => {
        const doc = { jsonrpc: '2.0', id: 3, result: t };
        const down = rpcAnswer(structuredClone(doc), 'GetTask', '0.3');
        rpc03.response(down, 'tasks/get');
        expect(rpcAnswer(down, 'GetTask', '1.0')).toEqual(lessEmptyWrappedMetadata(doc));
      }),
      RUNS,
    );
  });

  it('HTTP+JSON stream events: strict 0.3 ProtoJSON, and back less what 0.3 has no field for', () => {
    fc.assert(
      fc.property(streamResponse, (r) => {
        if (hasNonObjectData(r)) {
          expect(() => restAnswer(structuredClone(r), 'SendStreamingMessage', '0.3', 200)).toThrow(Untranslatable);
          return;
        }
        const down = restAnswer(structuredClone(r), 'SendStreamingMessage', '0.3', 200);
        V03.check('StreamResponse', down);
        expect(restAnswer(down, 'SendStreamingMessage', '1.0', 200)).toEqual(less03(r));
      }),
      RUNS,
    );
  });

  it('HTTP+JSON SendMessage requests: strict 0.3 ProtoJSON, and back less what 0.3 has no field for', () => {
    fc.assert(
      fc.property(sendRequest, (q) => {
        if (hasNonObjectData(q)) {
          expect(() => restRequest(structuredClone(q), 'SendMessage', '0.3', undefined)).toThrow(Untranslatable);
          return;
        }
        const down = restRequest(structuredClone(q), 'SendMessage', '0.3', undefined);
        V03.check('SendMessageRequest', down);
        expect(restRequest(down, 'SendMessage', '1.0', undefined)).toEqual(less03(blockingWritten(q)));
      }),
      RUNS,
    );
  });
});

/** 1.0 TaskPushNotificationConfig as an agent answers it (flat, with its task and its id). */
const taskPushConfig = fc.tuple(id, pushConfig, id).map(([taskId, c, configId]) => ({ ...c, id: configId, taskId }));

describe('generated 1.0 push notification configs, down to 0.3 and back', () => {
  it('JSON-RPC: create / get / list / delete calls and answers', () => {
    fc.assert(
      fc.property(taskPushConfig, fc.array(taskPushConfig, { maxLength: 3 }), (config, configs) => {
        V1.check('TaskPushNotificationConfig', config);
        const roundTrip = (
          doc: Obj,
          op: Parameters<typeof rpcRequest>[1],
          method: string,
          kind: 'request' | 'answer',
        ) => {
          const there =
            kind === 'request'
              ? rpcRequest(structuredClone(doc), op, '0.3')
              : rpcAnswer(structuredClone(doc), op, '0.3');
          if (kind === 'request') rpc03.request(there);
          else rpc03.response(there, method);
          return kind === 'request' ? rpcRequest(there, op, '1.0') : rpcAnswer(there, op, '1.0');
        };
        const create = { jsonrpc: '2.0', id: 1, method: 'CreateTaskPushNotificationConfig', params: config };
        expect(
          roundTrip(create, 'CreateTaskPushNotificationConfig', 'tasks/pushNotificationConfig/set', 'request'),
        ).toEqual(create);
        const answer = { jsonrpc: '2.0', id: 1, result: config };
        expect(
          roundTrip(answer, 'CreateTaskPushNotificationConfig', 'tasks/pushNotificationConfig/set', 'answer'),
        ).toEqual(answer);
        expect(
          roundTrip(answer, 'GetTaskPushNotificationConfig', 'tasks/pushNotificationConfig/get', 'answer'),
        ).toEqual(answer);
        for (const op of ['GetTaskPushNotificationConfig', 'DeleteTaskPushNotificationConfig'] as const) {
          const call = { jsonrpc: '2.0', id: 2, method: op, params: { taskId: config.taskId, id: config.id } };
          const method =
            op === 'GetTaskPushNotificationConfig'
              ? 'tasks/pushNotificationConfig/get'
              : 'tasks/pushNotificationConfig/delete';
          expect(roundTrip(call, op, method, 'request')).toEqual(call);
        }
        const list = { jsonrpc: '2.0', id: 3, result: { configs } };
        expect(
          roundTrip(list, 'ListTaskPushNotificationConfigs', 'tasks/pushNotificationConfig/list', 'answer'),
        ).toEqual(list);
        const listCall = {
          jsonrpc: '2.0',
          id: 3,
          method: 'ListTaskPushNotificationConfigs',
          params: { taskId: config.taskId },
        };
        expect(
          roundTrip(listCall, 'ListTaskPushNotificationConfigs', 'tasks/pushNotificationConfig/list', 'request'),
        ).toEqual(listCall);
        const deleted = { jsonrpc: '2.0', id: 4, result: {} };
        expect(
          roundTrip(deleted, 'DeleteTaskPushNotificationConfig', 'tasks/pushNotificationConfig/delete', 'answer'),
        ).toEqual(deleted);
      }),
      RUNS,
    );
  });

  it('HTTP+JSON: the create body and the config answers are strict 0.3 ProtoJSON, and come back', () => {
    fc.assert(
      fc.property(taskPushConfig, fc.array(taskPushConfig, { maxLength: 3 }), (config, configs) => {
        const { taskId, ...body } = config;
        const down = restRequest(structuredClone(body), 'CreateTaskPushNotificationConfig', '0.3', taskId);
        V03.check('CreateTaskPushNotificationConfigRequest', down);
        expect(restRequest(down, 'CreateTaskPushNotificationConfig', '1.0', taskId)).toEqual(config);
        const answer = restAnswer(structuredClone(config), 'GetTaskPushNotificationConfig', '0.3', 200);
        V03.check('TaskPushNotificationConfig', answer);
        // The 0.3 resource names (0.3 proto: `name=tasks/{id}/pushNotificationConfigs/{id}`, `parent=tasks/{id}`).
        expect((answer as Obj)['name']).toBe(`tasks/${config.taskId}/pushNotificationConfigs/${config.id}`);
        expect((down as Obj)['parent']).toBe(`tasks/${taskId}`);
        expect(restAnswer(answer, 'GetTaskPushNotificationConfig', '1.0', 200)).toEqual(config);
        const list = restAnswer({ configs: structuredClone(configs) }, 'ListTaskPushNotificationConfigs', '0.3', 200);
        V03.check('ListTaskPushNotificationConfigResponse', list);
        expect(restAnswer(list, 'ListTaskPushNotificationConfigs', '1.0', 200)).toEqual({ configs });
      }),
      RUNS,
    );
  });
});

const STATES_03 = [
  'unknown',
  'submitted',
  'working',
  'input-required',
  'completed',
  'canceled',
  'failed',
  'rejected',
  'auth-required',
];
/** 0.3 states after which the stream ends (a 1.0 stream closes there, wire-reference §5.3): what `final` is derived from going down. */
const LAST_03 = new Set(['completed', 'canceled', 'failed', 'rejected', 'input-required', 'auth-required']);
const object = fc.dictionary(key, json, { maxKeys: 3 });

const part03 = fc
  .tuple(
    fc.oneof(
      fc.record({ kind: fc.constant('text'), text: fc.string() }),
      fc.record({
        kind: fc.constant('file'),
        file: fc
          .tuple(
            fc.oneof(
              fc.record({ bytes: fc.base64String({ minLength: 4, maxLength: 16 }) }),
              fc.record({ uri: fc.webUrl() }),
            ),
            fc.record({ name: fc.string({ minLength: 1 }), mimeType: mediaType }, { requiredKeys: [] }),
          )
          .map(([c, extra]) => ({ ...c, ...extra })),
      }),
      fc.record({ kind: fc.constant('data'), data: object }),
    ),
    fc.record({ metadata }, { requiredKeys: [] }),
  )
  .map(([c, extra]) => ({ ...c, ...extra }));
const message03 = fc.record(
  {
    kind: fc.constant('message'),
    messageId: id,
    role: fc.constantFrom('user', 'agent'),
    parts: fc.array(part03, { minLength: 1, maxLength: 3 }),
    contextId: id,
    taskId: id,
    metadata,
    extensions: fc.array(fc.webUrl(), { maxLength: 2 }),
    referenceTaskIds: fc.array(id, { maxLength: 2 }),
  },
  { requiredKeys: ['kind', 'messageId', 'role', 'parts'] },
);
const status03 = fc.record(
  { state: fc.constantFrom(...STATES_03), message: message03, timestamp },
  { requiredKeys: ['state'] },
);
const artifact03 = fc.record(
  {
    artifactId: id,
    parts: fc.array(part03, { minLength: 1, maxLength: 3 }),
    name: fc.string(),
    description: fc.string(),
    metadata,
  },
  { requiredKeys: ['artifactId', 'parts'] },
);
const event03: fc.Arbitrary<Obj> = fc.oneof(
  fc.record(
    {
      kind: fc.constant('task'),
      id,
      contextId: id,
      status: status03,
      artifacts: fc.array(artifact03, { maxLength: 2 }),
      history: fc.array(message03, { maxLength: 2 }),
      metadata,
    },
    { requiredKeys: ['kind', 'id', 'contextId', 'status'] },
  ),
  message03,
  fc
    .record(
      { kind: fc.constant('status-update'), taskId: id, contextId: id, status: status03, metadata },
      { requiredKeys: ['kind', 'taskId', 'contextId', 'status'] },
    )
    .map((e) => ({ ...e, final: LAST_03.has(e.status.state) })),
  fc.record(
    {
      kind: fc.constant('artifact-update'),
      taskId: id,
      contextId: id,
      artifact: artifact03,
      append: fc.boolean(),
      lastChunk: fc.boolean(),
      metadata,
    },
    { requiredKeys: ['kind', 'taskId', 'contextId', 'artifact'] },
  ),
);

describe('generated 0.3 JSON-RPC objects, up to 1.0 and back', () => {
  it('stream events: strict 1.0 ProtoJSON, and back to the original', () => {
    fc.assert(
      fc.property(event03, (e) => {
        rpc03.event(e, 'generated');
        const doc = { jsonrpc: '2.0', id: 9, result: e };
        const up = rpcAnswer(structuredClone(doc), 'SendStreamingMessage', '1.0');
        V1.check('StreamResponse', up['result']);
        expect(rpcAnswer(up, 'SendStreamingMessage', '0.3')).toEqual(doc);
      }),
      RUNS,
    );
  });
});

const STATES_REST03 = STATES.map((s) => (s === 'TASK_STATE_CANCELED' ? 'TASK_STATE_CANCELLED' : s));
const LAST_REST03 = new Set(
  ['COMPLETED', 'CANCELLED', 'FAILED', 'REJECTED', 'INPUT_REQUIRED', 'AUTH_REQUIRED'].map((s) => `TASK_STATE_${s}`),
);
const partRest03 = fc.oneof(
  fc.record({ text: fc.string() }),
  fc.record({
    file: fc
      .tuple(
        fc.oneof(
          fc.record({ fileWithBytes: fc.base64String({ minLength: 4, maxLength: 16 }) }),
          fc.record({ fileWithUri: fc.webUrl() }),
        ),
        fc.record({ mimeType: mediaType }, { requiredKeys: [] }),
      )
      .map(([c, extra]) => ({ ...c, ...extra })),
  }),
  fc.record({ data: fc.record({ data: object }) }),
);
const messageRest03 = fc.record(
  {
    messageId: id,
    role: fc.constantFrom('ROLE_USER', 'ROLE_AGENT'),
    content: fc.array(partRest03, { minLength: 1, maxLength: 3 }),
    contextId: id,
    taskId: id,
    metadata,
    extensions: fc.array(fc.webUrl(), { maxLength: 2 }),
  },
  { requiredKeys: ['messageId', 'role', 'content'] },
);
const statusRest03 = fc.record(
  { state: fc.constantFrom(...STATES_REST03), message: messageRest03, timestamp },
  { requiredKeys: ['state'] },
);
const artifactRest03 = fc.record(
  {
    artifactId: id,
    parts: fc.array(partRest03, { minLength: 1, maxLength: 3 }),
    name: fc.string(),
    description: fc.string(),
    metadata,
  },
  { requiredKeys: ['artifactId', 'parts'] },
);
const eventRest03: fc.Arbitrary<Obj> = fc.oneof(
  fc
    .record(
      {
        id,
        contextId: id,
        status: statusRest03,
        artifacts: fc.array(artifactRest03, { maxLength: 2 }),
        history: fc.array(messageRest03, { maxLength: 2 }),
        metadata,
      },
      { requiredKeys: ['id', 'contextId', 'status'] },
    )
    .map((task) => ({ task })),
  messageRest03.map((message) => ({ message })),
  fc
    .record(
      { taskId: id, contextId: id, status: statusRest03, metadata },
      { requiredKeys: ['taskId', 'contextId', 'status'] },
    )
    .map((e) => ({ statusUpdate: { ...e, final: LAST_REST03.has(e.status.state) } })),
  fc
    .record(
      { taskId: id, contextId: id, artifact: artifactRest03, append: fc.boolean(), lastChunk: fc.boolean(), metadata },
      { requiredKeys: ['taskId', 'contextId', 'artifact'] },
    )
    .map((artifactUpdate) => ({ artifactUpdate })),
);

describe('generated 0.3 HTTP+JSON objects, up to 1.0 and back', () => {
  it('stream events: strict 1.0 ProtoJSON, and back to the original', () => {
    fc.assert(
      fc.property(eventRest03, (e) => {
        V03.check('StreamResponse', e);
        const up = restAnswer(structuredClone(e), 'SendStreamingMessage', '1.0', 200);
        V1.check('StreamResponse', up);
        expect(restAnswer(up, 'SendStreamingMessage', '0.3', 200)).toEqual(e);
      }),
      RUNS,
    );
  });
});
