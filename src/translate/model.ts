/**
 * The A2A data model between 1.0 JSON and a 0.3 dialect (dialect.ts): messages, artifacts,
 * task statuses, tasks, stream updates, send configurations and push configs, written once for
 * both 0.3 wires. What the two dialects spell differently is their `DialectSpec` (rpc03.ts,
 * rest03.ts): parts, `kind` tags, state names, where a message keeps its parts, the push config's
 * name in a send. Every member not named here is copied as it is.
 */
import type { Dialect, ModelMap } from './dialect.js';
import { endsStream } from './enums.js';
import { mapList, objectAt, put, rest, Untranslatable, type Obj } from './shapes.js';

type Dir = 'down' | 'up';
type Map1 = (value: unknown, where: string) => Obj;
type Spell = (value: unknown, where: string) => string;

export interface DialectSpec {
  /** 0.3 JSON-RPC tags each object with `kind` (`message`, `task`, `status-update`, …). */
  readonly kinds: boolean;
  /** The member a 0.3 message keeps its parts in: `parts` (JSON-RPC) or `content` (the 0.3 proto). */
  readonly messageParts: 'parts' | 'content';
  readonly part: Readonly<Record<Dir, Map1>>;
  readonly state: Readonly<Record<Dir, Spell>>;
  readonly role: Readonly<Record<Dir, Spell>>;
  /** Where a send's configuration holds its push config in 0.3. */
  readonly sendPushKey: string;
  /**
   * A 0.3 configuration without `blocking`: `blocks` (JSON-RPC, as its SDK clients took it) or
   * `returns` (the 0.3 proto: ProtoJSON leaves a false bool out, wire-reference §6.3, §6.4).
   */
  readonly absentBlocking: 'blocks' | 'returns';
  /** Message members the dialect has no field for, left out going down (rest03.ts). */
  readonly messageOmitDown?: readonly string[];
  /** 1.0's flat TaskPushNotificationConfig ⇔ the dialect's. */
  readonly taskPushConfig: Readonly<Record<Dir, Map1>>;
}

export function dialectOf(spec: DialectSpec): Dialect {
  return { down: modelMap(spec, 'down'), up: modelMap(spec, 'up') };
}

function modelMap(spec: DialectSpec, dir: Dir): ModelMap {
  const tag = (kind: string, body: Obj): Obj => (spec.kinds && dir === 'down' ? { kind, ...body } : body);
  const message = (value: unknown, where: string): Obj => {
    const m = objectAt(value, where);
    const [from, to] = dir === 'down' ? ['parts', spec.messageParts] : [spec.messageParts, 'parts'];
    const parts = mapList(m[from], `${where}.${from}`, spec.part[dir]);
    const role = spec.role[dir](m['role'], `${where}.role`);
    const omit = dir === 'down' ? (spec.messageOmitDown ?? []) : [];
    return tag('message', { ...rest(m, ['kind', from, ...omit]), role, [to]: parts });
  };
  const artifact = (value: unknown, where: string): Obj => {
    const a = objectAt(value, where);
    return { ...a, parts: mapList(a['parts'], `${where}.parts`, spec.part[dir]) };
  };
  /** TaskStatus; the 0.3 proto names its message `update` (JSON name `message`): both are read up. */
  const status = (value: unknown, where: string): Obj => {
    const s = objectAt(value, where);
    const out: Obj = { ...rest(s, ['update']), state: spec.state[dir](s['state'], `${where}.state`) };
    const msg = s['message'] ?? (dir === 'up' ? s['update'] : undefined);
    if (msg !== undefined) out['message'] = message(msg, `${where}.message`);
    return out;
  };
  return {
    message,
    artifact,
    task(value, where) {
      const t = objectAt(value, where);
      const out = tag('task', rest(t, ['kind']));
      out['status'] = status(t['status'], `${where}.status`);
      put(out, 'artifacts', mapList(t['artifacts'], `${where}.artifacts`, artifact));
      put(out, 'history', mapList(t['history'], `${where}.history`, message));
      return out;
    },
    statusUpdate(value, where) {
      const e = objectAt(value, where);
      const st = status(e['status'], `${where}.status`);
      if (dir === 'up') return { ...rest(e, ['kind', 'final']), status: st };
      // `final` (0.3): the stream's last event, which in 1.0 its state tells (enums.ts).
      const final = endsStream(objectAt(e['status'], `${where}.status`)['state'] as string);
      return tag('status-update', { ...rest(e, ['kind']), status: st, final });
    },
    artifactUpdate(value, where) {
      const e = objectAt(value, where);
      return tag('artifact-update', { ...rest(e, ['kind']), artifact: artifact(e['artifact'], `${where}.artifact`) });
    },
    sendConfiguration: (value, where) => sendConfiguration(spec, dir, value, where),
    taskPushConfig: spec.taskPushConfig[dir],
  };
}

/**
 * `returnImmediately` (1.0, default false = blocking) ⇔ `blocking` (0.3): true ⇔ false. Down,
 * `blocking` is always written: 0.3 stated no default and its peers differ. Up, an absent
 * `blocking` is read as the dialect says (`absentBlocking`).
 */
function sendConfiguration(spec: DialectSpec, dir: Dir, value: unknown, where: string): Obj {
  const c = objectAt(value, where);
  const [from, to] =
    dir === 'down'
      ? ['taskPushNotificationConfig', spec.sendPushKey]
      : [spec.sendPushKey, 'taskPushNotificationConfig'];
  const out = rest(c, ['returnImmediately', 'blocking', from]);
  if (dir === 'down') out['blocking'] = c['returnImmediately'] !== true;
  else if (typeof c['blocking'] === 'boolean') out['returnImmediately'] = !c['blocking'];
  else if (spec.absentBlocking === 'returns') out['returnImmediately'] = true;
  if (c[from] !== undefined) out[to] = pushConfig(dir, c[from], `${where}.${from}`);
  return out;
}

/** 1.0 AuthenticationInfo {scheme} ⇔ 0.3 {schemes: [..]}: more than one scheme cannot go to 1.0. */
function authentication(dir: Dir, value: unknown, where: string): Obj {
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
export function pushConfig(dir: Dir, value: unknown, where: string): Obj {
  const c = objectAt(value, where);
  if (dir === 'down' && typeof c['tenant'] === 'string' && c['tenant'] !== '') {
    throw new Untranslatable(`${where}.tenant`, 'A2A 0.3 has no tenants');
  }
  const out: Obj = dir === 'down' ? rest(c, ['taskId', 'tenant']) : { ...c };
  if (c['authentication'] !== undefined) {
    out['authentication'] = authentication(dir, c['authentication'], `${where}.authentication`);
  }
  return out;
}
