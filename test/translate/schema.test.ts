/**
 * Issue Done-when: every recorded capture of each version translated and checked against the
 * other version's schema. Each JSON payload of every JSON-RPC and HTTP+JSON capture (request
 * bodies, unary answers, each SSE event, push webhook bodies, agent cards; support/payloads.ts)
 * is translated to the other version (src/translate/) and checked:
 * - 1.0, both bindings, and 0.3 HTTP+JSON: strict ProtoJSON of docs/proto/a2a-v1.0.0.proto /
 *   a2a-v0.3.0.proto (support/proto-schema.ts: unknown members, wrong types, unknown enum names,
 *   two members of a oneof all rejected), against the operation's request or answer message;
 *   errors against the error shapes of wire-reference §4.2;
 * - 0.3 JSON-RPC (no proto): the structural check of the a2a-js 0.3 types (support/rpc03-shape.ts).
 * The checkers are themselves checked: every recorded payload passes its own version's check, and
 * most fail the other version's untranslated.
 */
import { describe, expect, it } from 'vitest';
import { Untranslatable } from '../../src/translate/shapes.js';
import { loadCapture } from '../a2a/captures.js';
import { checkSchema, other, translate } from './support/check.js';
import { allPayloads, type Payload } from './support/payloads.js';

const payloads = allPayloads();

/** Recorded payloads the translation refuses on purpose, with the refusal's `unsupported` flag. */
const REFUSED: Readonly<Record<string, { unsupported: boolean; why: string }>> = {
  'v1--jsonrpc-list-tasks.http request': { unsupported: true, why: 'ListTasks has no 0.3 counterpart' },
  'v1--jsonrpc-list-tasks.http answer': { unsupported: true, why: 'ListTasks has no 0.3 counterpart' },
  'v1--rest-list-tasks.http answer': { unsupported: true, why: 'ListTasks has no 0.3 counterpart' },
};

/**
 * Translated as they are, by design, and so not in the other version's shape: the SDK 1.3.0's
 * hybrid card for 0.3 clients carries `supportedInterfaces`, which translateCard takes as "already
 * 1.0" (card.ts) and passes on unchanged, 0.3 top-level members (`url`, `protocolVersion`, ..)
 * included; a strict 1.0 ProtoJSON reader rejects those. Only an agent that speaks both versions
 * serves such a card, and such an agent needs no translation.
 */
const AS_THEY_ARE: Readonly<Record<string, string>> = {
  'v1compat--v03client-jsonrpc-card.http': 'hybrid 0.3/1.0 card',
  'v1compat--v03client-rest-card.http': 'hybrid 0.3/1.0 card',
};

const count = (f: (p: Payload) => boolean): number => payloads.filter(f).length;

describe('translation of every recorded payload, checked against the other version’s schema', () => {
  it('covers the recorded exchanges of both versions and bindings', () => {
    const by = (version: string, binding: string, kinds: string[]) =>
      count((p) => p.version === version && p.binding === binding && kinds.includes(p.kind));
    // Counts as recorded (test/fixtures/captures): a capture added or lost shows here.
    expect({
      '1.0 jsonrpc requests': by('1.0', 'jsonrpc', ['request']),
      '1.0 jsonrpc answers+events': by('1.0', 'jsonrpc', ['answer', 'event']),
      '1.0 rest requests': by('1.0', 'rest', ['request']),
      '1.0 rest answers+events': by('1.0', 'rest', ['answer', 'event']),
      '0.3 jsonrpc requests': by('0.3', 'jsonrpc', ['request']),
      '0.3 jsonrpc answers+events': by('0.3', 'jsonrpc', ['answer', 'event']),
      '0.3 rest requests': by('0.3', 'rest', ['request']),
      '0.3 rest answers+events': by('0.3', 'rest', ['answer', 'event']),
      'push bodies': count((p) => p.kind === 'push'),
      cards: count((p) => p.kind === 'card'),
    }).toMatchInlineSnapshot(`
      {
        "0.3 jsonrpc answers+events": 33,
        "0.3 jsonrpc requests": 20,
        "0.3 rest answers+events": 18,
        "0.3 rest requests": 5,
        "1.0 jsonrpc answers+events": 66,
        "1.0 jsonrpc requests": 41,
        "1.0 rest answers+events": 30,
        "1.0 rest requests": 11,
        "cards": 8,
        "push bodies": 9,
      }
    `);
  });

  it.each(payloads.map((p) => [p.where, p] as const))('%s: recorded, passes its own version’s check', (_, p) => {
    checkSchema(p, p.json, p.version);
  });

  it.each(payloads.map((p) => [`${p.where} (${p.version} → ${other(p.version)})`, p] as const))('%s', (_, p) => {
    const to = other(p.version);
    const refused = REFUSED[p.where];
    if (refused !== undefined) {
      expect(() => translate(p, p.json, to)).toThrow(Untranslatable);
      try {
        translate(p, p.json, to);
      } catch (e) {
        expect((e as Untranslatable).unsupported).toBe(refused.unsupported);
      }
      return;
    }
    const translated = translate(p, p.json, to);
    if (AS_THEY_ARE[p.capture] !== undefined && to === '1.0') {
      expect(translated).toEqual(p.json);
      return;
    }
    checkSchema(p, translated, to);
  });

  it('most recorded payloads fail the other version’s check untranslated (the checks have teeth)', () => {
    const passing = payloads.filter((p) => {
      try {
        checkSchema(p, p.json, other(p.version));
        return true;
      } catch {
        return false;
      }
    });
    // Those spelled alike in both: JSON-RPC errors (code and message, no or array `data`) and
    // 0.3 HTTP+JSON artifact updates (ProtoJSON of the same fields under the same names).
    for (const p of passing) {
      const rpcError = p.binding === 'jsonrpc' && typeof p.json === 'object' && p.json !== null && 'error' in p.json;
      const artifactUpdate =
        p.binding === 'rest' && typeof p.json === 'object' && p.json !== null && 'artifactUpdate' in p.json;
      expect(rpcError || artifactUpdate, p.where).toBe(true);
    }
    expect(payloads.length - passing.length).toBeGreaterThan(payloads.length * 0.8);
  });
});

describe('`final` on the 0.3 status updates of each recorded 1.0 stream', () => {
  // A 1.0 stream ends by closing after a terminal or interrupted state (wire-reference §5.3);
  // 0.3 says so with final:true on that last status update, and final:false before it.
  const streams = [...new Set(payloads.filter((p) => p.version === '1.0' && p.kind === 'event').map((p) => p.capture))];

  it.each(streams)('%s', (capture) => {
    const events = payloads.filter((p) => p.capture === capture && p.kind === 'event');
    const finals = events.map((p) => {
      const down = translate(p, p.json, '0.3') as Record<string, any>;
      const update = p.binding === 'jsonrpc' ? down['result'] : down['statusUpdate'];
      const isStatus = p.binding === 'jsonrpc' ? update?.['kind'] === 'status-update' : update !== undefined;
      return isStatus ? (update['final'] as unknown) : 'not a status update';
    });
    const aborted = loadCapture(capture).response?.aborted === true;
    finals.slice(0, -1).forEach((f, i) => expect(f === true, `${capture} #${i}`).toBe(false));
    // A stream that is one Message (a direct answer) has no status update to mark.
    if (!aborted && finals.at(-1) !== 'not a status update')
      expect(finals.at(-1), `${capture}: the last event`).toBe(true);
    if (!aborted) expect(finals.at(-1) === true || events.length === 1, capture).toBe(true);
  });
});
