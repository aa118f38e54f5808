/**
 * 1.0 JSON ⇔ 0.3 HTTP+JSON objects: the ProtoJSON of the 0.3 proto (docs/proto/a2a-v0.3.0.proto,
 * wire-reference §6.4), as the a2a-js 0.3 REST peers speak it. Messages carry `content`, not
 * `parts`; a part is `{text}`, `{file: {fileWithUri | fileWithBytes, mimeType}}` or
 * `{data: {data: {..}}}`; CANCELLED has two Ls; push configs are named
 * `tasks/{id}/pushNotificationConfigs/{configId}`. The 0.3 proto's parts have no `metadata`,
 * files no name and text and data no media type: those are left out going down (NO_PLACE_IN_03).
 */
import type { Dialect } from './dialect.js';
import { endsStream, stateFromRest03, stateToRest03 } from './enums.js';
import { pushConfig } from './rpc03.js';
import { isObj, mapList, objectAt, put, rest, Untranslatable, type Obj } from './shapes.js';

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

function message(dir: 'down' | 'up') {
  return (value: unknown, where: string): Obj => {
    const m = objectAt(value, where);
    if (dir === 'down') {
      // The 0.3 proto's Message has no reference_task_ids (0.3 JSON-RPC has): left out, as NO_PLACE_IN_03.
      return { ...rest(m, ['parts', 'referenceTaskIds']), content: mapList(m['parts'], `${where}.parts`, partDown) };
    }
    return { ...rest(m, ['content']), parts: mapList(m['content'], `${where}.content`, partUp) };
  };
}

function artifact(dir: 'down' | 'up') {
  return (value: unknown, where: string): Obj => {
    const a = objectAt(value, where);
    return { ...a, parts: mapList(a['parts'], `${where}.parts`, dir === 'down' ? partDown : partUp) };
  };
}

/** TaskStatus: `update` is the 0.3 proto's field name, `message` its JSON name; both are read. */
function status(dir: 'down' | 'up', value: unknown, where: string): Obj {
  const s = objectAt(value, where);
  const state = (dir === 'down' ? stateToRest03 : stateFromRest03)(s['state'], `${where}.state`);
  const out: Obj = { ...rest(s, ['update']), state };
  const msg = s['message'] ?? (dir === 'up' ? s['update'] : undefined);
  if (msg !== undefined) out['message'] = message(dir)(msg, `${where}.message`);
  return out;
}

function task(dir: 'down' | 'up') {
  return (value: unknown, where: string): Obj => {
    const t = objectAt(value, where);
    const out: Obj = { ...t, status: status(dir, t['status'], `${where}.status`) };
    put(out, 'artifacts', mapList(t['artifacts'], `${where}.artifacts`, artifact(dir)));
    put(out, 'history', mapList(t['history'], `${where}.history`, message(dir)));
    return out;
  };
}

function statusUpdate(dir: 'down' | 'up') {
  return (value: unknown, where: string): Obj => {
    const e = objectAt(value, where);
    const st = status(dir, e['status'], `${where}.status`);
    if (dir === 'up') return { ...rest(e, ['final']), status: st };
    const final = endsStream(objectAt(e['status'], `${where}.status`)['state'] as string);
    return { ...e, status: st, final };
  };
}

function artifactUpdate(dir: 'down' | 'up') {
  return (value: unknown, where: string): Obj => {
    const e = objectAt(value, where);
    return { ...e, artifact: artifact(dir)(e['artifact'], `${where}.artifact`) };
  };
}

/** `returnImmediately` ⇔ `blocking` (see rpc03.ts); the push config is `pushNotification` here. */
function sendConfiguration(dir: 'down' | 'up') {
  return (value: unknown, where: string): Obj => {
    const c = objectAt(value, where);
    const from = dir === 'down' ? 'taskPushNotificationConfig' : 'pushNotification';
    const out = rest(c, ['returnImmediately', 'blocking', from]);
    if (dir === 'down' && typeof c['returnImmediately'] === 'boolean') out['blocking'] = !c['returnImmediately'];
    if (dir === 'up' && typeof c['blocking'] === 'boolean') out['returnImmediately'] = !c['blocking'];
    const to = dir === 'down' ? 'pushNotification' : 'taskPushNotificationConfig';
    if (c[from] !== undefined) out[to] = pushConfig(dir, c[from], `${where}.${from}`);
    return out;
  };
}

const CONFIG_NAME = /^tasks\/([^/]+)\/pushNotificationConfigs\/([^/]*)$/;

/** 1.0 flat TaskPushNotificationConfig ⇔ 0.3 `{name: tasks/{id}/pushNotificationConfigs/{cid}, pushNotificationConfig}`. */
function taskPushConfig(dir: 'down' | 'up') {
  return (value: unknown, where: string): Obj => {
    const c = objectAt(value, where);
    if (dir === 'down') {
      const name = `tasks/${String(c['taskId'] ?? '')}/pushNotificationConfigs/${String(c['id'] ?? '')}`;
      return { name, pushNotificationConfig: pushConfig('down', c, where) };
    }
    const inner = pushConfig('up', c['pushNotificationConfig'], `${where}.pushNotificationConfig`);
    const named = typeof c['name'] === 'string' ? CONFIG_NAME.exec(c['name']) : null;
    const out: Obj = { ...rest(c, ['name', 'pushNotificationConfig']), ...inner };
    if (named) out['taskId'] = decodeURIComponent(named[1]!);
    if (named && out['id'] === undefined && named[2]) out['id'] = decodeURIComponent(named[2]);
    return out;
  };
}

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

export const rest03: Dialect = { down: maps('down'), up: maps('up') };
