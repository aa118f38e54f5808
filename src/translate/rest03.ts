/**
 * 1.0 JSON ⇔ 0.3 HTTP+JSON objects: the ProtoJSON of the 0.3 proto (docs/proto/a2a-v0.3.0.proto,
 * wire-reference §6.4), as the a2a-js 0.3 REST peers speak it. Messages carry `content`, not
 * `parts`; a part is `{text}`, `{file: {fileWithUri | fileWithBytes, mimeType}}` or
 * `{data: {data: {..}}}`; CANCELLED has two Ls; push configs are named
 * `tasks/{id}/pushNotificationConfigs/{configId}`. The 0.3 proto's parts have no `metadata`,
 * files no name and text and data no media type: those are left out going down (NO_PLACE_IN_03).
 */
import type { Dialect } from './dialect.js';
import { stateFromRest03, stateToRest03 } from './enums.js';
import { dialectOf, pushConfig } from './model.js';
import { isObj, objectAt, put, rest, Untranslatable, type Obj } from './shapes.js';

/**
 * The 1.0 Part members the 0.3 proto's Part has no field for: a ProtoJSON reader of the 0.3 proto
 * (a2a-python's `json_format.Parse`, Go's `protojson`) rejects a body that carries them, so they
 * are left out (a file's `mediaType` goes as its `mimeType`), as the official SDK's own 0.3
 * compatibility layer does. Members no version defines still pass (shapes.ts).
 */
const NO_PLACE_IN_03 = ['metadata', 'filename', 'mediaType'];

function partDown(value: unknown, where: string): Obj {
  const p = objectAt(value, where);
  if (typeof p['text'] === 'string') return rest(p, NO_PLACE_IN_03);
  const out = rest(p, ['raw', 'url', 'data', ...NO_PLACE_IN_03]);
  if (p['raw'] !== undefined || p['url'] !== undefined) {
    const file: Obj = p['raw'] !== undefined ? { fileWithBytes: p['raw'] } : { fileWithUri: p['url'] };
    put(file, 'mimeType', p['mediaType']);
    return { file, ...out };
  }
  if ('data' in p) {
    if (!isObj(p['data'])) throw new Untranslatable(`${where}.data`, 'A2A 0.3 HTTP+JSON data parts hold an object');
    return { data: { data: p['data'] }, ...out };
  }
  throw new Untranslatable(where, 'a part with none of text, raw, url or data');
}

function partUp(value: unknown, where: string): Obj {
  const p = objectAt(value, where);
  if (typeof p['text'] === 'string') return { ...p };
  if (isObj(p['file'])) {
    const file = p['file'];
    const content: Obj =
      file['fileWithBytes'] !== undefined ? { raw: file['fileWithBytes'] } : { url: file['fileWithUri'] };
    if (file['fileWithBytes'] === undefined && file['fileWithUri'] === undefined) {
      throw new Untranslatable(`${where}.file`, 'neither fileWithUri nor fileWithBytes');
    }
    put(content, 'mediaType', file['mimeType']);
    return { ...content, ...rest(p, ['file']) };
  }
  if (isObj(p['data'])) return { ...rest(p, ['data']), data: p['data']['data'] ?? {} };
  throw new Untranslatable(where, 'a part with none of text, file or data');
}

const CONFIG_NAME = /^tasks\/([^/]+)\/pushNotificationConfigs\/([^/]*)$/;

/** 1.0 flat TaskPushNotificationConfig ⇔ 0.3 `{name: tasks/{id}/pushNotificationConfigs/{cid}, pushNotificationConfig}`. */
function taskPushConfigDown(value: unknown, where: string): Obj {
  const c = objectAt(value, where);
  const name = `tasks/${String(c['taskId'] ?? '')}/pushNotificationConfigs/${String(c['id'] ?? '')}`;
  return { name, pushNotificationConfig: pushConfig('down', c, where) };
}

function taskPushConfigUp(value: unknown, where: string): Obj {
  const c = objectAt(value, where);
  const inner = pushConfig('up', c['pushNotificationConfig'], `${where}.pushNotificationConfig`);
  const named = typeof c['name'] === 'string' ? CONFIG_NAME.exec(c['name']) : null;
  const out: Obj = { ...rest(c, ['name', 'pushNotificationConfig']), ...inner };
  if (named) out['taskId'] = decodeURIComponent(named[1]!);
  if (named && out['id'] === undefined && named[2]) out['id'] = decodeURIComponent(named[2]);
  return out;
}

/** Roles are spelled as in 1.0 (`ROLE_USER`, `ROLE_AGENT`). */
const sameRole = (role: unknown): string => role as string;

export const rest03: Dialect = dialectOf({
  kinds: false,
  messageParts: 'content',
  part: { down: partDown, up: partUp },
  state: { down: stateToRest03, up: stateFromRest03 },
  role: { down: sameRole, up: sameRole },
  sendPushKey: 'pushNotification',
  absentBlocking: 'returns',
  // The 0.3 proto's Message has no reference_task_ids (0.3 JSON-RPC has): left out, as NO_PLACE_IN_03.
  messageOmitDown: ['referenceTaskIds'],
  taskPushConfig: { down: taskPushConfigDown, up: taskPushConfigUp },
});
