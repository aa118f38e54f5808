/**
 * The official SDK as the oracle: the `v1compat--v03client-*` captures are the SDK 1.3.0's own 0.3
 * rendering of what its 1.0 agent answers (its compatibility layer), and the `v03--*` ones the
 * native 0.3.14 agent's answer to the same scenario. Our translation of the matching 1.0 capture
 * (`v1--*`) must give the same 0.3 object, event by event, once what differs between two
 * recordings is blanked out (ids, timestamps, ports, JSON-RPC ids) and the differences that are no
 * difference to a 0.3 reader are set aside (KNOWN, each with why). The other way: the 0.3 SDK
 * client's request, translated up, must be the 1.0 SDK client's request for the same call.
 */
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadCapture } from '../a2a/captures.js';
import { translate } from './support/check.js';
import { payloadsOf, type Payload } from './support/payloads.js';

type Obj = Record<string, any>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function walk(v: unknown, f: (o: Obj) => void): void {
  if (Array.isArray(v)) v.forEach((x) => walk(x, f));
  else if (isObj(v)) {
    Object.values(v).forEach((x) => walk(x, f));
    f(v);
  }
}

/** What differs between two recordings of one scenario and says nothing about the translation. */
function blank(v: unknown): any {
  const text = JSON.stringify(v)
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>')
    .replace(/result-[0-9a-f]{8}/g, 'result-<id>')
    .replace(/\d{4}-\d\d-\d\dT[0-9:.]+Z/g, '<time>')
    .replace(/127\.0\.0\.1:\d+/g, '<host>');
  const out = JSON.parse(text);
  if (isObj(out) && out['jsonrpc'] === '2.0') out['id'] = '<rpc-id>';
  return out;
}

/** Differences between our 0.3 rendering and the SDK's that a 0.3 reader does not see, each with why. */
interface Known {
  readonly why: string;
  /** Only on agent cards. */
  readonly cards?: true;
  readonly ours?: (o: Obj) => void;
  readonly sdk?: (o: Obj) => void;
  readonly both?: (o: Obj) => void;
}

const KNOWN: readonly Known[] = [
  {
    why:
      'append / lastChunk / final false and absent are one value (optional booleans in 0.3 JSON-RPC, ProtoJSON leaves false out); ' +
      'the SDK writes append:false, lastChunk:false, our copy of the 1.0 event has them absent as 1.0 sent them',
    both: (o) => {
      for (const key of ['append', 'lastChunk']) if (o[key] === false) delete o[key];
      if (isObj(o['statusUpdate']) && o['statusUpdate']['final'] === false) delete o['statusUpdate']['final'];
    },
  },
  {
    why: 'a 1.0 JSON-RPC error’s data (the ErrorInfo array) goes down as it is, since 0.3 `data` is free-form; the SDK drops it',
    ours: (o) => {
      if (isObj(o['error'])) delete o['error']['data'];
    },
  },
  {
    why:
      'cards: an empty list or map is no list or map (the 1.0 card has signatures [], extensions [], securitySchemes {} that the ' +
      'SDK leaves out); "0.3" and "0.3.0" are the same protocol version; the SDK’s hybrid card also lists supportedInterfaces, ' +
      'its 1.0 spelling for 1.0 readers',
    cards: true,
    both: (o) => {
      for (const [key, value] of Object.entries(o)) {
        if ((Array.isArray(value) && value.length === 0) || (isObj(value) && Object.keys(value).length === 0))
          delete o[key];
      }
      if (typeof o['protocolVersion'] === 'string' && o['url'] !== undefined)
        o['protocolVersion'] = o['protocolVersion'].slice(0, 3);
    },
    sdk: (o) => {
      if (o['url'] !== undefined) delete o['supportedInterfaces'];
    },
  },
  {
    why:
      'the native 0.3.14 agent writes an empty artifacts list on a new task and no metadata, the 1.3.0 agent the other way round: ' +
      'agent habits, not translation',
    both: (o) => {
      if (o['kind'] === 'task' || isObj(o['status'])) {
        if (Array.isArray(o['artifacts']) && o['artifacts'].length === 0) delete o['artifacts'];
        if (isObj(o['metadata']) && Object.keys(o['metadata']).length === 0) delete o['metadata'];
      }
    },
  },
  {
    why:
      'requests: the 1.0 SDK client writes mediaType text/plain on the text parts it sends (the 0.3 client has no such member), ' +
      'and returnImmediately:false is the 1.0 default the 1.0 client leaves out (0.3 blocking:true)',
    both: (o) => {
      if (o['kind'] === undefined && typeof o['text'] === 'string' && o['mediaType'] === 'text/plain')
        delete o['mediaType'];
      if (o['returnImmediately'] === false) delete o['returnImmediately'];
    },
  },
];

function settle(p: Payload, v: unknown, side: 'ours' | 'sdk', rules: readonly Known[] = KNOWN): unknown {
  const out = blank(v);
  for (const k of rules) {
    if (k.cards && p.kind !== 'card') continue;
    walk(out, (o) => {
      k.both?.(o);
      (side === 'ours' ? k.ours : k.sdk)?.(o);
    });
  }
  return out;
}

/** [1.0 capture, the SDK's 0.3 capture of the same scenario]. */
const PAIRS: ReadonlyArray<readonly [string, string]> = [
  ['v1--jsonrpc-send-question.http', 'v1compat--v03client-jsonrpc-send-question.http'],
  ['v1--jsonrpc-send-return-immediately.http', 'v1compat--v03client-jsonrpc-send-non-blocking.http'],
  ['v1--jsonrpc-send-streaming.http', 'v1compat--v03client-jsonrpc-send-streaming.http'],
  ['v1--jsonrpc-get-unknown-task.http', 'v1compat--v03client-jsonrpc-get-unknown-task.http'],
  ['v1--jsonrpc-subscribe-completed.http', 'v1compat--v03client-jsonrpc-resubscribe-completed.http'],
  ['v1--rest-send-question.http', 'v1compat--v03client-rest-send-question.http'],
  ['v1--rest-send-streaming.http', 'v1compat--v03client-rest-send-streaming.http'],
  ['v1--rest-subscribe-completed.http', 'v1compat--v03client-rest-resubscribe-completed.http'],
  ['v1--push-jsonrpc-01.http', 'v1compat--push-v03client-jsonrpc-01.http'],
  ['v1compat--v1client-jsonrpc-card.http', 'v1compat--v03client-jsonrpc-card.http'],
  // The native 0.3 agent on the same scenario.
  ['v1--jsonrpc-send-streaming.http', 'v03--jsonrpc-send-streaming.http'],
  ['v1--rest-send-streaming.http', 'v03--rest-send-streaming.http'],
  ['v1--jsonrpc-send-question.http', 'v03--jsonrpc-send-question.http'],
  ['v1--rest-send-question.http', 'v03--rest-send-question.http'],
  ['v1--rest-send-blocking.http', 'v03--rest-send-blocking.http'],
];

const answers = (name: string): Payload[] => payloadsOf(loadCapture(name)).filter((p) => p.kind !== 'request');
const request = (name: string): Payload | undefined => payloadsOf(loadCapture(name)).find((p) => p.kind === 'request');

describe('oracle: our 0.3 rendering of a 1.0 agent’s answers against the SDK’s own', () => {
  it.each(PAIRS)('%s → 0.3 = %s', (v1, sdk) => {
    const ours = answers(v1);
    const theirs = answers(sdk);
    expect(ours.length).toBeGreaterThan(0);
    expect(theirs.map((p) => p.op)).toEqual(ours.map((p) => p.op));
    ours.forEach((p, i) => {
      expect(settle(p, translate(p, p.json, '0.3'), 'ours'), `${p.where}`).toEqual(settle(p, theirs[i]!.json, 'sdk'));
    });
  });

  it.each(PAIRS.filter(([v1, sdk]) => request(v1) !== undefined && request(sdk) !== undefined))(
    'the 0.3 client’s request of %s translated up is the 1.0 client’s (%s)',
    (v1, sdk) => {
      const q03 = request(sdk)!;
      expect(settle(q03, translate(q03, q03.json, '1.0'), 'ours')).toEqual(settle(q03, request(v1)!.json, 'sdk'));
    },
  );

  it('sets aside only what some pair needs', () => {
    for (const k of KNOWN) {
      const without = KNOWN.filter((x) => x !== k);
      const differs = PAIRS.some(([v1, sdk]) => {
        const same = (a: unknown, b: unknown) => isDeepStrictEqual(a, b);
        const theirs = answers(sdk);
        const answersDiffer = answers(v1).some(
          (p, i) =>
            !same(settle(p, translate(p, p.json, '0.3'), 'ours', without), settle(p, theirs[i]!.json, 'sdk', without)),
        );
        const q1 = request(v1);
        const q03 = request(sdk);
        const requestsDiffer =
          q1 !== undefined &&
          q03 !== undefined &&
          !same(settle(q03, translate(q03, q03.json, '1.0'), 'ours', without), settle(q03, q1.json, 'sdk', without));
        return answersDiffer || requestsDiffer;
      });
      expect(differs, k.why).toBe(true);
    }
  });
});
