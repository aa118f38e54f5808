/**
 * 1.0 JSON ⇔ 0.3 JSON-RPC objects (wire-reference §2 vs §6.3, the a2a-js 0.3 `types.ts`):
 * `kind` discriminators, lowercase enums, `file` parts, `final` on status updates, nested push
 * configs. A 1.0 `data` part that is not an object is wrapped as `{value}` with the metadata flag
 * `data_part_compat: true`, the convention of the official SDK's 0.3 compatibility layer, so SDK
 * peers unwrap it (and so does `up`).
 */
import type { Dialect } from './dialect.js';
import { endsStream, roleFromRpc03, roleToRpc03, stateFromRpc03, stateToRpc03 } from './enums.js';
import { isObj, mapList, objectAt, put, rest, Untranslatable, type Obj } from './shapes.js';

const COMPAT_FLAG = 'data_part_compat';

function partDown(value: unknown, where: string): Obj {
  const p = objectAt(value, where);
  const out: Obj = rest(p, ['text', 'raw', 'url', 'data', 'filename', 'mediaType']);
  if (typeof p['text'] === 'string') {
    return { kind: 'text', text: p['text'], ...rest(p, ['text']) };
  }
  if (p['raw'] !== undefined || p['url'] !== undefined) {
    const file: Obj = p['raw'] !== undefined ? { bytes: p['raw'] } : { uri: p['url'] };
    put(file, 'mimeType', p['mediaType']);
    put(file, 'name', p['filename']);
    return { kind: 'file', file, ...out };
  }
  if ('data' in p) {
    // `mediaType` and `filename` stay beside the data, as on a text part (0.3 ignores them; `up` keeps them).
    if (isObj(p['data'])) return { kind: 'data', data: p['data'], ...rest(p, ['data']) };
    const metadata = { ...(isObj(p['metadata']) ? p['metadata'] : {}), [COMPAT_FLAG]: true };
    return { kind: 'data', data: { value: p['data'] }, ...rest(p, ['data']), metadata };
  }
  throw new Untranslatable(where, 'a part with none of text, raw, url or data');
}

function partUp(value: unknown, where: string): Obj {
  const p = objectAt(value, where);
  if (p['kind'] === 'text') return rest(p, ['kind']);
  if (p['kind'] === 'file') {
    const file = objectAt(p['file'], `${where}.file`);
    const out: Obj = 'bytes' in file ? { raw: file['bytes'] } : { url: file['uri'] };
    if (!('bytes' in file) && !('uri' in file)) throw new Untranslatable(`${where}.file`, 'neither bytes nor uri');
    put(out, 'filename', file['name']);
    put(out, 'mediaType', file['mimeType']);
    return { ...out, ...rest(p, ['kind', 'file']) };
  }
  if (p['kind'] === 'data') return dataUp(p);
  throw new Untranslatable(`${where}.kind`, `unknown part kind ${JSON.stringify(p['kind'])}`);
}

/** Unwraps the SDK's `{value}` wrapper of a non-object value (see the file comment). */
function dataUp(p: Obj): Obj {
  const meta = p['metadata'];
  if (!isObj(meta) || meta[COMPAT_FLAG] !== true || !isObj(p['data']) || !('value' in p['data'])) {
    return rest(p, ['kind']);
  }
  const metadata = rest(meta, [COMPAT_FLAG]);
  const out: Obj = { ...rest(p, ['kind', 'metadata', 'data']), data: p['data']['value'] };
  if (Object.keys(metadata).length > 0) out['metadata'] = metadata;
  return out;
}

function message(dir: 'down' | 'up') {
  return (value: unknown, where: string): Obj => {
    const m = objectAt(value, where);
    const parts = mapList(m['parts'], `${where}.parts`, dir === 'down' ? partDown : partUp);
    if (dir === 'down') {
      return { kind: 'message', ...rest(m, ['kind']), role: roleToRpc03(m['role'], `${where}.role`), parts };
    }
    return { ...rest(m, ['kind']), role: roleFromRpc03(m['role'], `${where}.role`), parts };
  };
}

function artifact(dir: 'down' | 'up') {
  return (value: unknown, where: string): Obj => {
    const a = objectAt(value, where);
    return { ...a, parts: mapList(a['parts'], `${where}.parts`, dir === 'down' ? partDown : partUp) };
  };
}

function status(dir: 'down' | 'up', value: unknown, where: string): Obj {
  const s = objectAt(value, where);
  const state = (dir === 'down' ? stateToRpc03 : stateFromRpc03)(s['state'], `${where}.state`);
  const out: Obj = { ...s, state };
  if (s['message'] !== undefined) out['message'] = message(dir)(s['message'], `${where}.message`);
  return out;
}

function task(dir: 'down' | 'up') {
  return (value: unknown, where: string): Obj => {
    const t = objectAt(value, where);
    const out: Obj = dir === 'down' ? { kind: 'task', ...rest(t, ['kind']) } : rest(t, ['kind']);
    out['status'] = status(dir, t['status'], `${where}.status`);
    put(out, 'artifacts', mapList(t['artifacts'], `${where}.artifacts`, artifact(dir)));
    put(out, 'history', mapList(t['history'], `${where}.history`, message(dir)));
    return out;
  };
}

function statusUpdate(dir: 'down' | 'up') {
  return (value: unknown, where: string): Obj => {
    const e = objectAt(value, where);
    const st = status(dir, e['status'], `${where}.status`);
    if (dir === 'up') return { ...rest(e, ['kind', 'final']), status: st };
    // `final` (0.3): this is the stream's last event, which in 1.0 its state tells (enums.ts).
    const final = endsStream(objectAt(e['status'], `${where}.status`)['state'] as string);
    return { kind: 'status-update', ...rest(e, ['kind']), status: st, final };
  };
}

function artifactUpdate(dir: 'down' | 'up') {
  return (value: unknown, where: string): Obj => {
    const e = objectAt(value, where);
    const body = { ...rest(e, ['kind']), artifact: artifact(dir)(e['artifact'], `${where}.artifact`) };
    return dir === 'down' ? { kind: 'artifact-update', ...body } : body;
  };
}

/** 1.0 AuthenticationInfo {scheme} ⇔ 0.3 {schemes: [..]}: more than one scheme cannot go to 1.0. */
function authentication(dir: 'down' | 'up', value: unknown, where: string): Obj {
  const a = objectAt(value, where);
  if (dir === 'down') {
    const out = rest(a, ['scheme']);
    return { schemes: typeof a['scheme'] === 'string' && a['scheme'] !== '' ? [a['scheme']] : [], ...out };
  }
  const schemes = a['schemes'];
  if (Array.isArray(schemes) && schemes.length > 1) {
    throw new Untranslatable(`${where}.schemes`, '1.0 takes one authentication scheme, this names several');
  }
  const out = rest(a, ['schemes']);
  return Array.isArray(schemes) && schemes.length === 1 ? { scheme: schemes[0], ...out } : out;
}

/** A push config's own members (`url`, `id`, `token`, `authentication`), either way. */
export function pushConfig(dir: 'down' | 'up', value: unknown, where: string): Obj {
  const c = objectAt(value, where);
  const out: Obj = dir === 'down' ? rest(c, ['taskId', 'tenant']) : { ...c };
  if (dir === 'down' && typeof c['tenant'] === 'string' && c['tenant'] !== '') {
    throw new Untranslatable(`${where}.tenant`, 'A2A 0.3 has no tenants');
  }
  if (c['authentication'] !== undefined) {
    out['authentication'] = authentication(dir, c['authentication'], `${where}.authentication`);
  }
  return out;
}

/** 1.0 flat TaskPushNotificationConfig ⇔ 0.3 `{taskId, pushNotificationConfig}`. */
function taskPushConfig(dir: 'down' | 'up') {
  return (value: unknown, where: string): Obj => {
    const c = objectAt(value, where);
    if (dir === 'down') return { taskId: c['taskId'], pushNotificationConfig: pushConfig('down', c, where) };
    const inner = pushConfig('up', c['pushNotificationConfig'], `${where}.pushNotificationConfig`);
    return { ...rest(c, ['pushNotificationConfig']), ...inner, taskId: c['taskId'] };
  };
}

/**
 * `returnImmediately` (1.0, default false = blocking) ⇔ `blocking` (0.3): true ⇔ false. An absent
 * `blocking` stays absent: 1.0 then blocks, as the 0.3 SDK clients and agents took it
 * (wire-reference §6.3).
 */
function sendConfiguration(dir: 'down' | 'up') {
  return (value: unknown, where: string): Obj => {
    const c = objectAt(value, where);
    const [from, to] = dir === 'down' ? ['taskPushNotificationConfig', 'pushNotificationConfig'] : [to03, to1];
    const out = rest(c, ['returnImmediately', 'blocking', from]);
    if (dir === 'down' && typeof c['returnImmediately'] === 'boolean') out['blocking'] = !c['returnImmediately'];
    if (dir === 'up' && typeof c['blocking'] === 'boolean') out['returnImmediately'] = !c['blocking'];
    if (c[from] !== undefined) out[to] = pushConfig(dir, c[from], `${where}.${from}`);
    return out;
  };
}
const to03 = 'pushNotificationConfig';
const to1 = 'taskPushNotificationConfig';

function maps(dir: 'down' | 'up') {
  return {
    message: message(dir),
    task: task(dir),
    artifact: artifact(dir),
    statusUpdate: statusUpdate(dir),
    artifactUpdate: artifactUpdate(dir),
    sendConfiguration: sendConfiguration(dir),
    taskPushConfig: taskPushConfig(dir),
  };
}

export const rpc03: Dialect = { down: maps('down'), up: maps('up') };
