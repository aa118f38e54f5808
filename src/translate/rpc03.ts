/**
 * 1.0 JSON ⇔ 0.3 JSON-RPC objects (wire-reference §2 vs §6.3, the a2a-js 0.3 `types.ts`):
 * `kind` discriminators, lowercase enums, `file` parts, `final` on status updates, nested push
 * configs. A 1.0 `data` part that is not an object is wrapped as `{value}` with the metadata flag
 * `data_part_compat: true`, the convention of the official SDK's 0.3 compatibility layer, so SDK
 * peers unwrap it (and so does `up`).
 */
import type { Dialect } from './dialect.js';
import { roleFromRpc03, roleToRpc03, stateFromRpc03, stateToRpc03 } from './enums.js';
import { dialectOf, pushConfig } from './model.js';
import { isObj, objectAt, put, rest, Untranslatable, type Obj } from './shapes.js';

const COMPAT_FLAG = 'data_part_compat';

function partDown(value: unknown, where: string): Obj {
  const p = objectAt(value, where);
  const out: Obj = rest(p, ['text', 'raw', 'url', 'data', 'filename', 'mediaType']);
  if (typeof p['text'] === 'string') {
    // A text part is text/plain in 0.3, which has no media type for it: only another one is kept.
    const plain = p['mediaType'] === 'text/plain' ? ['text', 'mediaType'] : ['text'];
    return { kind: 'text', text: p['text'], ...rest(p, plain) };
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

/** 1.0 flat TaskPushNotificationConfig ⇔ 0.3 `{taskId, pushNotificationConfig}`. */
function taskPushConfigDown(value: unknown, where: string): Obj {
  const c = objectAt(value, where);
  return { taskId: c['taskId'], pushNotificationConfig: pushConfig('down', c, where) };
}

function taskPushConfigUp(value: unknown, where: string): Obj {
  const c = objectAt(value, where);
  const inner = pushConfig('up', c['pushNotificationConfig'], `${where}.pushNotificationConfig`);
  return { ...rest(c, ['pushNotificationConfig']), ...inner, taskId: c['taskId'] };
}

export const rpc03: Dialect = dialectOf({
  kinds: true,
  messageParts: 'parts',
  part: { down: partDown, up: partUp },
  state: { down: stateToRpc03, up: stateFromRpc03 },
  role: { down: roleToRpc03, up: roleFromRpc03 },
  sendPushKey: 'pushNotificationConfig',
  absentBlocking: 'blocks',
  taskPushConfig: { down: taskPushConfigDown, up: taskPushConfigUp },
});
