/**
 * The 0.3 JSON-RPC shapes (a2a-js 0.3 `types.ts` = the A2A 0.3 JSON schema, wire-reference §6.3),
 * checked structurally: that 0.3 had no proto for. Each check throws with the member's path on
 * the first thing a 0.3 peer would not read: a missing or mistyped required member, a wrong
 * `kind`, an enum literal 0.3 does not have, a 1.0 spelling left untranslated (`raw`/`url` parts,
 * `TASK_STATE_*`, `ROLE_*`, `{statusUpdate: ..}` wrappers, `returnImmediately`, a flat push
 * config). The 0.3 schema allows members it does not name (no `additionalProperties: false`),
 * so other members pass (a 1.0 text part's `mediaType`; the hybrid card's `supportedInterfaces`,
 * wire-reference §6.5), except the 1.0 spellings named in FORBIDDEN.
 */
type Obj = Record<string, unknown>;

const STATES = [
  'submitted',
  'working',
  'input-required',
  'completed',
  'canceled',
  'failed',
  'rejected',
  'auth-required',
  'unknown',
];
const ROLES = ['user', 'agent'];

/** 1.0 member names that mean the object was not translated (each object type's own list). */
const FORBIDDEN: Readonly<Record<string, readonly string[]>> = {
  part: ['raw', 'url'],
  message: ['content'],
  sendConfiguration: ['returnImmediately', 'taskPushNotificationConfig'],
  pushConfig: ['taskId', 'tenant'],
  authentication: ['scheme'],
  params: ['tenant'],
};

class ShapeError extends Error {}

function fail(where: string, why: string): never {
  throw new ShapeError(`${where}: ${why}`);
}

function obj(v: unknown, where: string): Obj {
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    fail(where, `expected an object, got ${JSON.stringify(v)}`);
  return v as Obj;
}

function str(o: Obj, key: string, where: string, optional = false): void {
  if (o[key] === undefined && optional) return;
  if (typeof o[key] !== 'string') fail(`${where}.${key}`, `expected a string, got ${JSON.stringify(o[key])}`);
}

function bool(o: Obj, key: string, where: string, optional = false): void {
  if (o[key] === undefined && optional) return;
  if (typeof o[key] !== 'boolean') fail(`${where}.${key}`, `expected a boolean, got ${JSON.stringify(o[key])}`);
}

function int(o: Obj, key: string, where: string): void {
  if (o[key] !== undefined && !Number.isInteger(o[key])) fail(`${where}.${key}`, 'expected an integer');
}

function strings(o: Obj, key: string, where: string): void {
  const v = o[key];
  if (v === undefined) return;
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string'))
    fail(`${where}.${key}`, 'expected an array of strings');
}

function metadata(o: Obj, where: string): void {
  if (o['metadata'] !== undefined) obj(o['metadata'], `${where}.metadata`);
}

function kind(o: Obj, expected: string, where: string): void {
  if (o['kind'] !== expected)
    fail(`${where}.kind`, `expected ${JSON.stringify(expected)}, got ${JSON.stringify(o['kind'])}`);
}

function oneOf(o: Obj, key: string, values: readonly string[], where: string): void {
  if (!values.includes(o[key] as string)) fail(`${where}.${key}`, `not a 0.3 value: ${JSON.stringify(o[key])}`);
}

function none(o: Obj, type: keyof typeof FORBIDDEN, where: string): void {
  for (const key of FORBIDDEN[type]!) if (key in o) fail(`${where}.${key}`, 'a 1.0 member, not translated');
}

function list(o: Obj, key: string, where: string, each: (v: unknown, where: string) => void, optional = true): void {
  const v = o[key];
  if (v === undefined && optional) return;
  if (!Array.isArray(v)) fail(`${where}.${key}`, 'expected an array');
  v.forEach((item, i) => each(item, `${where}.${key}[${i}]`));
}

export function part(v: unknown, where: string): void {
  const p = obj(v, where);
  none(p, 'part', where);
  metadata(p, where);
  switch (p['kind']) {
    case 'text':
      return str(p, 'text', where);
    case 'file': {
      // A 1.0 file part's name and media type go inside `file` (0.3 FileBase `name`, `mimeType`).
      for (const key of ['filename', 'mediaType'])
        if (key in p) fail(`${where}.${key}`, 'belongs in file, as name / mimeType');
      const f = obj(p['file'], `${where}.file`);
      const hasBytes = typeof f['bytes'] === 'string';
      const hasUri = typeof f['uri'] === 'string';
      if (hasBytes === hasUri) fail(`${where}.file`, 'exactly one of bytes (string) and uri (string)');
      str(f, 'name', `${where}.file`, true);
      str(f, 'mimeType', `${where}.file`, true);
      return;
    }
    case 'data':
      obj(p['data'], `${where}.data`);
      return;
    default:
      fail(`${where}.kind`, `not a 0.3 part kind: ${JSON.stringify(p['kind'])}`);
  }
}

export function message(v: unknown, where: string): void {
  const m = obj(v, where);
  kind(m, 'message', where);
  none(m, 'message', where);
  str(m, 'messageId', where);
  oneOf(m, 'role', ROLES, where);
  str(m, 'contextId', where, true);
  str(m, 'taskId', where, true);
  strings(m, 'extensions', where);
  strings(m, 'referenceTaskIds', where);
  metadata(m, where);
  list(m, 'parts', where, part, false);
}

function status(v: unknown, where: string): void {
  const s = obj(v, where);
  oneOf(s, 'state', STATES, where);
  str(s, 'timestamp', where, true);
  if (s['message'] !== undefined) message(s['message'], `${where}.message`);
}

export function artifact(v: unknown, where: string): void {
  const a = obj(v, where);
  str(a, 'artifactId', where);
  str(a, 'name', where, true);
  str(a, 'description', where, true);
  strings(a, 'extensions', where);
  metadata(a, where);
  list(a, 'parts', where, part, false);
}

export function task(v: unknown, where: string): void {
  const t = obj(v, where);
  kind(t, 'task', where);
  str(t, 'id', where);
  str(t, 'contextId', where);
  status(t['status'], `${where}.status`);
  list(t, 'artifacts', where, artifact);
  list(t, 'history', where, message);
  metadata(t, where);
}

export function statusUpdate(v: unknown, where: string): void {
  const e = obj(v, where);
  kind(e, 'status-update', where);
  str(e, 'taskId', where);
  str(e, 'contextId', where);
  bool(e, 'final', where);
  status(e['status'], `${where}.status`);
  metadata(e, where);
}

export function artifactUpdate(v: unknown, where: string): void {
  const e = obj(v, where);
  kind(e, 'artifact-update', where);
  str(e, 'taskId', where);
  str(e, 'contextId', where);
  bool(e, 'append', where, true);
  bool(e, 'lastChunk', where, true);
  artifact(e['artifact'], `${where}.artifact`);
  metadata(e, where);
}

/** A stream event or a `message/send` result: a bare Task | Message | status | artifact update. */
export function event(v: unknown, where: string): void {
  const e = obj(v, where);
  const by: Readonly<Record<string, (v: unknown, where: string) => void>> = {
    task,
    message,
    'status-update': statusUpdate,
    'artifact-update': artifactUpdate,
  };
  const check = by[e['kind'] as string];
  if (check === undefined) fail(`${where}.kind`, `not a 0.3 event kind: ${JSON.stringify(e['kind'])}`);
  check(e, where);
}

export function pushConfig(v: unknown, where: string): void {
  const c = obj(v, where);
  none(c, 'pushConfig', where);
  str(c, 'url', where);
  str(c, 'id', where, true);
  str(c, 'token', where, true);
  if (c['authentication'] !== undefined) {
    const a = obj(c['authentication'], `${where}.authentication`);
    none(a, 'authentication', `${where}.authentication`);
    strings(a, 'schemes', `${where}.authentication`);
    if (!Array.isArray(a['schemes'])) fail(`${where}.authentication.schemes`, 'required');
    str(a, 'credentials', `${where}.authentication`, true);
  }
}

/** 0.3 TaskPushNotificationConfig: `{taskId, pushNotificationConfig}`. */
export function taskPushConfig(v: unknown, where: string): void {
  const c = obj(v, where);
  str(c, 'taskId', where);
  pushConfig(c['pushNotificationConfig'], `${where}.pushNotificationConfig`);
}

function sendParams(v: unknown, where: string): void {
  const p = obj(v, where);
  none(p, 'params', where);
  message(p['message'], `${where}.message`);
  metadata(p, where);
  if (p['configuration'] === undefined) return;
  const c = obj(p['configuration'], `${where}.configuration`);
  none(c, 'sendConfiguration', `${where}.configuration`);
  strings(c, 'acceptedOutputModes', `${where}.configuration`);
  int(c, 'historyLength', `${where}.configuration`);
  bool(c, 'blocking', `${where}.configuration`, true);
  if (c['pushNotificationConfig'] !== undefined)
    pushConfig(c['pushNotificationConfig'], `${where}.configuration.pushNotificationConfig`);
}

/** 0.3 `{id, historyLength?, metadata?}` (TaskQueryParams / TaskIdParams). */
function taskIdParams(v: unknown, where: string): void {
  const p = obj(v, where);
  none(p, 'params', where);
  str(p, 'id', where);
  int(p, 'historyLength', where);
  metadata(p, where);
}

const METHODS: Readonly<Record<string, (params: unknown, where: string) => void>> = {
  'message/send': sendParams,
  'message/stream': sendParams,
  'tasks/get': taskIdParams,
  'tasks/cancel': taskIdParams,
  'tasks/resubscribe': taskIdParams,
  'tasks/pushNotificationConfig/set': taskPushConfig,
  'tasks/pushNotificationConfig/get': (v, where) => {
    taskIdParams(v, where);
    str(obj(v, where), 'pushNotificationConfigId', where, true);
  },
  'tasks/pushNotificationConfig/delete': (v, where) => {
    taskIdParams(v, where);
    str(obj(v, where), 'pushNotificationConfigId', where);
  },
  'tasks/pushNotificationConfig/list': taskIdParams,
  'agent/getAuthenticatedExtendedCard': () => {},
};

/** A 0.3 JSON-RPC request. */
export function request(v: unknown): void {
  const r = obj(v, 'request');
  if (r['jsonrpc'] !== '2.0') fail('request.jsonrpc', 'expected "2.0"');
  const check = METHODS[r['method'] as string];
  if (check === undefined) fail('request.method', `not a 0.3 method: ${JSON.stringify(r['method'])}`);
  check(r['params'], 'request.params');
}

/** What each 0.3 method's `result` is. */
const RESULTS: Readonly<Record<string, (v: unknown, where: string) => void>> = {
  'message/send': (v, where) => {
    const k = obj(v, where)['kind'];
    if (k !== 'task' && k !== 'message') fail(`${where}.kind`, 'message/send answers a task or a message');
    event(v, where);
  },
  'message/stream': event,
  'tasks/resubscribe': event,
  'tasks/get': task,
  'tasks/cancel': task,
  'tasks/pushNotificationConfig/set': taskPushConfig,
  'tasks/pushNotificationConfig/get': taskPushConfig,
  'tasks/pushNotificationConfig/list': (v, where) => {
    if (!Array.isArray(v)) fail(where, 'expected a bare array');
    v.forEach((c, i) => taskPushConfig(c, `${where}[${i}]`));
  },
  'tasks/pushNotificationConfig/delete': (v, where) => {
    if (v !== null) fail(where, 'expected null');
  },
  'agent/getAuthenticatedExtendedCard': (v, where) => card(v, where),
};

/** A 0.3 JSON-RPC response (unary or one stream event) to a call of `method`. */
export function response(v: unknown, method: string): void {
  const r = obj(v, 'response');
  if (r['jsonrpc'] !== '2.0') fail('response.jsonrpc', 'expected "2.0"');
  if (!('id' in r)) fail('response.id', 'required');
  if (r['error'] !== undefined) {
    const e = obj(r['error'], 'response.error');
    if (!Number.isInteger(e['code'])) fail('response.error.code', 'expected an integer');
    str(e, 'message', 'response.error');
    if ('result' in r) fail('response', 'both result and error');
    return;
  }
  const check = RESULTS[method];
  if (check === undefined) fail('method', `not a 0.3 method: ${method}`);
  if (!('result' in r)) fail('response.result', 'required');
  check(r['result'], 'response.result');
}

const TRANSPORTS = ['JSONRPC', 'GRPC', 'HTTP+JSON'];

/** A 0.3 AgentCard (types.ts AgentCard: required members and the 0.3 spellings). */
export function card(v: unknown, where = 'card'): void {
  const c = obj(v, where);
  for (const key of ['name', 'description', 'url', 'version', 'protocolVersion']) str(c, key, where);
  if ('securityRequirements' in c) fail(`${where}.securityRequirements`, 'a 1.0 member, not translated');
  oneOf(c, 'preferredTransport', TRANSPORTS, where);
  list(c, 'additionalInterfaces', where, (i, w) => {
    const o = obj(i, w);
    str(o, 'url', w);
    oneOf(o, 'transport', TRANSPORTS, w);
  });
  const caps = obj(c['capabilities'], `${where}.capabilities`);
  if ('extendedAgentCard' in caps) fail(`${where}.capabilities.extendedAgentCard`, 'a 1.0 member, not translated');
  bool(c, 'supportsAuthenticatedExtendedCard', where, true);
  strings(c, 'defaultInputModes', where);
  strings(c, 'defaultOutputModes', where);
  list(
    c,
    'skills',
    where,
    (s, w) => {
      const o = obj(s, w);
      for (const key of ['id', 'name', 'description']) str(o, key, w);
      strings(o, 'tags', w);
      if ('securityRequirements' in o) fail(`${w}.securityRequirements`, 'a 1.0 member, not translated');
    },
    false,
  );
  if (c['securitySchemes'] !== undefined) {
    for (const [name, s] of Object.entries(obj(c['securitySchemes'], `${where}.securitySchemes`))) {
      oneOf(
        obj(s, `${where}.securitySchemes.${name}`),
        'type',
        ['apiKey', 'http', 'oauth2', 'openIdConnect', 'mutualTLS'],
        `${where}.securitySchemes.${name}`,
      );
    }
  }
  list(c, 'security', where, (r, w) => {
    for (const [name, scopes] of Object.entries(obj(r, w))) {
      if (!Array.isArray(scopes)) fail(`${w}.${name}`, 'expected an array of scopes');
    }
  });
}
