/**
 * Every recorded payload (support/payloads.ts) translated to the other version and back gives the
 * original, except for the normalisations listed in NORMALISATIONS, each with why: a rule turns
 * the original into what the round trip must give. A rule that no recorded payload needs any
 * more fails the last test, so the list stays the list of what the translation does not keep.
 * The recorded HTTP+JSON routes go the same way (restPath).
 */
import { describe, expect, it } from 'vitest';
import { matchRestRoute } from '../../src/a2a/rest-routes.js';
import { restPath } from '../../src/translate/rest.js';
import { Untranslatable } from '../../src/translate/shapes.js';
import { listCaptures, loadCapture } from '../a2a/captures.js';
import { other, translate } from './support/check.js';
import { allPayloads, ODD, versionOf, type Payload } from './support/payloads.js';

type Obj = Record<string, any>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const clone = <T>(v: T): T => structuredClone(v);

/** Applies `f` to every object in `v`, depth first (f may change the object in place). */
function walk(v: unknown, f: (o: Obj) => void): void {
  if (Array.isArray(v)) v.forEach((x) => walk(x, f));
  else if (isObj(v)) {
    Object.values(v).forEach((x) => walk(x, f));
    f(v);
  }
}

/** The states after which a 1.0 stream closes (terminal or interrupted, wire-reference §5.2, §5.3), in both 0.3 spellings. */
const LAST_03 = new Set(['completed', 'canceled', 'failed', 'rejected', 'input-required', 'auth-required']);
const LAST_REST03 = new Set(
  ['COMPLETED', 'CANCELLED', 'FAILED', 'REJECTED', 'INPUT_REQUIRED', 'AUTH_REQUIRED'].map((s) => `TASK_STATE_${s}`),
);

const INFO = 'type.googleapis.com/google.rpc.ErrorInfo';
/** The JSON-RPC codes the captures' errors carry, and their ErrorInfo reason and status (wire-reference §4.1). */
const REASONS: Readonly<Record<number, readonly [string, string]>> = {
  [-32001]: ['TASK_NOT_FOUND', 'NOT_FOUND'],
  [-32002]: ['TASK_NOT_CANCELABLE', 'FAILED_PRECONDITION'],
  [-32004]: ['UNSUPPORTED_OPERATION', 'FAILED_PRECONDITION'],
  [-32005]: ['CONTENT_TYPE_NOT_SUPPORTED', 'INVALID_ARGUMENT'],
  [-32009]: ['VERSION_NOT_SUPPORTED', 'FAILED_PRECONDITION'],
  [-32602]: ['INVALID_ARGUMENT', 'INVALID_ARGUMENT'],
};
const CODE_OF = Object.fromEntries(Object.entries(REASONS).map(([code, [reason]]) => [reason, Number(code)]));
CODE_OF['INVALID_PARAMS'] = -32602;

interface Normalisation {
  readonly why: string;
  readonly applies: (p: Payload) => boolean;
  /** The original → what the round trip gives. */
  readonly expect: (original: unknown, p: Payload) => unknown;
}

const NORMALISATIONS: Readonly<Record<string, Normalisation>> = {
  'rpc-error-data': {
    why:
      '0.3 JSON-RPC error → 1.0 → 0.3: going up, `data` becomes the 1.0 array with an ErrorInfo for the code (wire-reference §4.2); ' +
      'going down it stays, since 0.3 `data` is free-form and a 0.3 client reads it as it is',
    applies: (p) => p.version === '0.3' && p.binding === 'jsonrpc' && isObj(p.json) && isObj(p.json['error']),
    expect: (o) => {
      const e = (o as Obj)['error'] as Obj;
      const reason = REASONS[e['code'] as number];
      const data: unknown[] = reason ? [{ '@type': INFO, reason: reason[0], domain: 'a2a-protocol.org' }] : [];
      if (e['data'] !== undefined)
        data.push({ '@type': 'type.googleapis.com/google.protobuf.Value', value: e['data'] });
      return data.length === 0 ? o : { ...(o as Obj), error: { ...e, data } };
    },
  },
  'final-from-state': {
    why:
      '0.3 status update → 1.0 → 0.3: 1.0 has no `final` (the stream closing tells it), so it is derived again from the state ' +
      '(terminal or interrupted). The 0.3.14 agent sends final:false on a terminal state and final:true on a ' +
      'working one after it (capture v03--jsonrpc-send-streaming-misbehave); ProtoJSON leaves final:false out, the translation writes it',
    applies: (p) => p.version === '0.3' && (p.kind === 'event' || p.kind === 'push'),
    expect: (o) => {
      walk(o, (x) => {
        if (x['kind'] === 'status-update') x['final'] = LAST_03.has(x['status']['state']);
        if (isObj(x['statusUpdate']))
          x['statusUpdate']['final'] = LAST_REST03.has(x['statusUpdate']['status']['state']);
      });
      return o;
    },
  },
  'card-03': {
    why:
      '0.3 card → 1.0 → 0.3: the interfaces become one list of distinct url+binding, so an additionalInterfaces entry repeating the ' +
      'main url and transport goes; stateTransitionHistory does not exist in 1.0; an absent supportsAuthenticatedExtendedCard is false ' +
      '(capabilities.extendedAgentCard is a plain bool)',
    applies: (p) => p.version === '0.3' && p.kind === 'card' && isObj(p.json) && !('supportedInterfaces' in p.json),
    expect: (o) => {
      const c = o as Obj;
      c['additionalInterfaces'] = (c['additionalInterfaces'] ?? []).filter(
        (i: Obj) => !(i['url'] === c['url'] && i['transport'] === (c['preferredTransport'] ?? 'JSONRPC')),
      );
      delete c['capabilities']['stateTransitionHistory'];
      c['supportsAuthenticatedExtendedCard'] ??= false;
      return c;
    },
  },
  'rest03-part-members': {
    why:
      '1.0 HTTP+JSON → 0.3 → 1.0: the 0.3 proto Part has no metadata, no file name and no media type for text or data; ' +
      'a strict 0.3 ProtoJSON reader rejects them, so they are left out (rest03.ts NO_PLACE_IN_03); a file keeps its media type as mimeType',
    applies: (p) => p.version === '1.0' && p.binding === 'rest' && p.kind !== 'card',
    expect: (o) => {
      walk(o, (x) => {
        if (!Array.isArray(x['parts'])) return;
        for (const part of x['parts'] as Obj[]) {
          delete part['metadata'];
          delete part['filename'];
          if (part['raw'] === undefined && part['url'] === undefined) delete part['mediaType'];
        }
      });
      return o;
    },
  },
  'rest-error-details': {
    why:
      '1.0 HTTP+JSON error → 0.3 `{code, message}` → 1.0: the ErrorInfo is rebuilt from the JSON-RPC code, so its metadata is ' +
      'lost and its reason spelled as the spec table spells it (a2a-js says INVALID_PARAMS for INVALID_ARGUMENT)',
    applies: (p) => p.version === '1.0' && p.binding === 'rest' && p.httpStatus >= 400,
    expect: (o) => {
      const e = (o as Obj)['error'] as Obj;
      const info = (e['details'] as Obj[]).find((d) => d['@type'] === INFO);
      const code = CODE_OF[info?.['reason']] ?? (e['status'] === 'INVALID_ARGUMENT' ? -32602 : -32603);
      const [reason, status] = REASONS[code] ?? ['INTERNAL', 'INTERNAL'];
      return { error: { ...e, status, details: [{ '@type': INFO, reason, domain: 'a2a-protocol.org' }] } };
    },
  },
  'card-10': {
    why:
      '1.0 card → 0.3 → 1.0: the 0.3 card has no tenants, and the 1.0 card of a translated agent lists each interface at both ' +
      'versions (the gateway translates on the same URLs, card.ts)',
    applies: (p) => p.version === '1.0' && p.kind === 'card',
    expect: (o) => {
      const c = o as Obj;
      const distinct = (c['supportedInterfaces'] as Obj[])
        .map((i) => ({ url: i['url'], protocolBinding: i['protocolBinding'] }))
        .filter((i, n, all) => all.findIndex((j) => j.url === i.url && j.protocolBinding === i.protocolBinding) === n);
      c['supportedInterfaces'] = ['1.0', '0.3'].flatMap((v) => distinct.map((i) => ({ ...i, protocolVersion: v })));
      return c;
    },
  },
  'text-plain-implied': {
    why:
      '1.0 → 0.3 JSON-RPC → 1.0: a 0.3 text part is text/plain by definition and has no media type, so `mediaType: text/plain` ' +
      'on a text part is left out going down (rpc03.ts); any other media type stays',
    applies: (p) => p.version === '1.0' && (p.binding === 'jsonrpc' || p.kind === 'push') && p.kind !== 'card',
    expect: (o) => {
      walk(o, (x) => {
        if (!Array.isArray(x['parts'])) return;
        for (const part of x['parts'] as Obj[]) {
          if (typeof part['text'] === 'string' && part['mediaType'] === 'text/plain') delete part['mediaType'];
        }
      });
      return o;
    },
  },
  'blocking-written': {
    why:
      'a send → the other version → back: `blocking` is always written going to 0.3 (0.3 stated no default and its SDK peers ' +
      'differ, model.ts), and a 1.0 SendMessage without configuration gets one; so the 1.0 default comes back written out ' +
      '(returnImmediately: false), and a 0.3 send comes back with its blocking stated (HTTP+JSON: an absent bool read as false, ProtoJSON)',
    applies: (p) => p.kind === 'request' && (p.op === 'SendMessage' || p.op === 'SendStreamingMessage'),
    expect: (o, p) => {
      const params = (p.binding === 'jsonrpc' ? (o as Obj)['params'] : o) as Obj;
      const config = params['configuration'] as Obj | undefined;
      if (p.version === '1.0') {
        if (config) config['returnImmediately'] ??= false;
        else if (p.op === 'SendMessage') params['configuration'] = { returnImmediately: false };
      } else if (config) config['blocking'] ??= p.binding === 'jsonrpc';
      else if (p.op === 'SendMessage') params['configuration'] = { blocking: true };
      return o;
    },
  },
  'rpc-params': {
    why: '1.0 JSON-RPC request without `params` → 0.3 → 1.0: params come back as {} (JSON-RPC: absent params and {} are alike for A2A)',
    applies: (p) => p.kind === 'request' && p.binding === 'jsonrpc' && isObj(p.json) && p.json['params'] === undefined,
    expect: (o) => ({ ...(o as Obj), params: {} }),
  },
};

const payloads = allPayloads().filter(
  // Refused going to 0.3 (schema.test.ts): nothing comes back.
  (p) => !(p.op === 'ListTasks' && p.version === '1.0'),
);
// The hybrid 0.3/1.0 card is "already 1.0" to translateCard and goes up as it is (schema.test.ts AS_THEY_ARE);
// down it is "already 0.3" too, so it round-trips unchanged without a rule.

function expected(p: Payload, used: Set<string>): unknown {
  let out = clone(p.json);
  for (const [name, rule] of Object.entries(NORMALISATIONS)) {
    if (!rule.applies(p)) continue;
    const before = JSON.stringify(out);
    out = rule.expect(out, p);
    if (JSON.stringify(out) !== before) used.add(name);
  }
  return out;
}

describe('round trip: every recorded payload to the other version and back', () => {
  it.each(payloads.map((p) => [`${p.where} (${p.version} → ${other(p.version)} → ${p.version})`, p] as const))(
    '%s',
    (_, p) => {
      const there = translate(p, clone(p.json), other(p.version));
      const back = translate(p, there, p.version);
      expect(back).toEqual(expected(p, new Set()));
    },
  );

  it('needs every listed normalisation for some recorded payload', () => {
    const used = new Set<string>();
    for (const p of payloads) expected(p, used);
    expect([...used].sort()).toEqual(Object.keys(NORMALISATIONS).sort());
  });

  it('leaves the recorded payload it translates untouched', () => {
    for (const p of payloads) {
      const before = JSON.stringify(p.json);
      translate(p, p.json, other(p.version));
      expect(JSON.stringify(p.json), p.where).toBe(before);
    }
  });
});

describe('round trip: every recorded HTTP+JSON route to the other version and back', () => {
  const routes = listCaptures()
    .map((name) => loadCapture(name))
    .filter((c) => !c.name.includes('--push-') && c.request.path.includes('/a2a/rest/') && ODD[c.name] === undefined)
    .map((c) => ({
      name: c.name,
      method: c.request.method,
      target: c.request.query ? `${c.request.path}?${c.request.query}` : c.request.path,
    }))
    .filter((r) => matchRestRoute(r.method, r.target.split('?')[0]!) !== undefined);

  it('covers the recorded routes', () => {
    expect(routes.length).toBeGreaterThan(20);
  });

  it.each(routes.map((r) => [`${r.name}: ${r.method} ${r.target}`, r] as const))('%s', (_, r) => {
    const version = versionOf(r.name);
    const route = matchRestRoute(r.method, r.target.split('?')[0]!)!;
    if (route.operation === 'ListTasks' && version === '1.0') {
      expect(() => restPath(r.method, r.target, '0.3')).toThrow(Untranslatable);
      return;
    }
    const there = restPath(r.method, r.target, other(version))!;
    // 0.3 routes have `/v1` before the operation (wire-reference §6.2), 1.0 ones not.
    expect(matchRestRoute(r.method, there.split('?')[0]!)).toMatchObject({
      operation: route.operation,
      legacyV1: other(version) === '0.3',
    });
    // v1--edge-rest-v03-path: curl sent the 0.3 path `/v1/message:send` as a 1.0 call; it comes back in 1.0 spelling.
    const expected = r.name === 'v1--edge-rest-v03-path.http' ? r.target.replace('/v1/', '/') : r.target;
    expect(restPath(r.method, there, version)).toBe(expected);
  });
});
