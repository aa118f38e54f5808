/**
 * Agent-card rewrite inside the agent's own bytes (pure): the extended card arrives as an
 * ordinary response (extended-card.ts), and a JSON round trip of it would change more than the
 * URLs — `12345678901234567890` becomes `…567000`, `1e400` becomes `null`, duplicate keys and
 * invalid UTF-8 are lost, a 100k-deep value overflows the stack. So the document is walked for
 * byte spans (src/codec/json-spans.ts), each interface URL string (the fields of rewrite.ts) gets
 * the same decision as in `rewriteCard` (`interfaceRewriter`: GRPC interfaces, by their binding,
 * to the gateway's gRPC address) and is replaced by its JSON encoding, and
 * when a URL changed the card's `signatures` member is cut out (spec §8.4: the JWS no longer
 * verifies), with its comma. Every other byte stays as it was: `JSON.parse` of the result equals
 * `rewriteCard` of `JSON.parse` of the input wherever that parse is lossless.
 *
 * Every occurrence counts: a duplicated `url` or `supportedInterfaces` is rewritten in each copy,
 * so a client reading the first copy and one reading the last both reach the gateway. A body that
 * holds no card where its binding puts one (JSON-RPC `result`, REST: the body) is left as it is
 * and says why (`notCard`); a JSON-RPC error answer is left as it is and is no such case.
 */
import { compileScanPlan, type ScanPlan } from '../codec/json-scan-plan.js';
import { locateJson, type MemberSpan, type SpanHit } from '../codec/json-spans.js';
import { spliceBytes, type ByteEdit } from '../codec/byte-splice.js';
import {
  ENTRY_BINDING_KEYS,
  INTERFACE_LISTS,
  MAIN_BINDING_KEY,
  type InterfaceList,
  interfaceField,
  isGrpcBinding,
} from '../a2a/card-interfaces.js';
import { interfaceRewriter, type UntouchedUrl, type UrlChange } from './rewrite.js';

/** Where the card sits: the body itself (REST, public card) or a JSON-RPC `result`. */
export type CardPlace = 'body' | 'result';

export interface CardBytesRewrite {
  /** The rewritten bytes; the input itself when nothing changed. */
  readonly body: Uint8Array;
  readonly changed: UrlChange[];
  readonly untouched: UntouchedUrl[];
  readonly signaturesDropped: number;
  /** Why the body was left alone: it holds no card where the binding puts one. */
  readonly notCard?: string;
}

/*
 * The bytes are walked here, not parsed (see the header), so the fields are found by path; the
 * names, and which key names a binding, are the ones `interfacesOf` reads (src/a2a/card-interfaces.ts).
 */
type BindingKey = (typeof ENTRY_BINDING_KEYS)[number] | typeof MAIN_BINDING_KEY;

function planFor(place: CardPlace): ScanPlan {
  const at = place === 'body' ? '' : 'result';
  const under = (path: string) => (at === '' ? path : `${at}.${path}`);
  return compileScanPlan([
    '',
    at,
    under('url'),
    under('signatures'),
    under(MAIN_BINDING_KEY),
    ...INTERFACE_LISTS.flatMap((list) => ENTRY_BINDING_KEYS.map((key) => under(`${list}.*.${key}`))),
    ...INTERFACE_LISTS.map((list) => under(`${list}.*.url`)),
  ]);
}

const PLANS: Record<CardPlace, ScanPlan> = { body: planFor('body'), result: planFor('result') };

const encoder = new TextEncoder();
const lenient = new TextDecoder();

/** A card names its interfaces: 1.0 `supportedInterfaces`, 0.3 `url` or `additionalInterfaces`. */
function isCard(members: readonly MemberSpan[]): boolean {
  return members.some(
    (m) =>
      (m.key === 'url' && m.type === 'string') ||
      ((INTERFACE_LISTS as readonly string[]).includes(m.key) && m.type === 'array'),
  );
}

/** Why the card position holds no card, or undefined when it does (or the answer is an error). */
function whyNotCard(hits: readonly SpanHit[], place: CardPlace): string | undefined {
  const root = hits.find((h) => h.path === '');
  if (place === 'result') {
    if (root?.members === undefined) return `the body is a JSON ${root?.type ?? 'value'}, not a JSON-RPC response`;
    const keys = new Set(root.members.map((m) => m.key));
    if (!keys.has('result')) return keys.has('error') ? undefined : 'the JSON-RPC response has no result';
  }
  const cards = hits.filter((h) => h.path === (place === 'body' ? '' : 'result'));
  if (cards.some((h) => h.members !== undefined && isCard(h.members))) return undefined;
  const where = place === 'body' ? 'the body' : 'the result';
  const card = cards.find((h) => h.members !== undefined);
  if (card?.members === undefined) return `${where} is a JSON ${cards[0]?.type ?? 'value'}, not an object`;
  const keys = new Set(card.members.map((m) => m.key));
  const task = keys.has('status') && keys.has('id') ? ' (a Task?)' : '';
  return `${where} names no interface (supportedInterfaces, url, additionalInterfaces)${task}`;
}

/** Byte ranges that remove the members `drop` selects, commas included, the rest untouched. */
function removals(members: readonly MemberSpan[], drop: (m: MemberSpan) => boolean): ByteEdit[] {
  const none = new Uint8Array(0);
  const kept = members.findIndex((m) => !drop(m));
  if (kept < 0) {
    const first = members[0];
    const last = members[members.length - 1];
    return first && last ? [{ start: first.keyStart, end: last.valueEnd, bytes: none }] : [];
  }
  const edits: ByteEdit[] = [];
  members.forEach((m, i) => {
    if (!drop(m)) return;
    // Before the first kept member: up to the next key (this member and the comma after it);
    // after it: from the end of the previous value (the comma before it and this member).
    if (i < kept) edits.push({ start: m.keyStart, end: (members[i + 1] as MemberSpan).keyStart, bytes: none });
    else edits.push({ start: (members[i - 1] as MemberSpan).valueEnd, end: m.valueEnd, bytes: none });
  });
  return edits;
}

/** The card field a hit is (`url`, `supportedInterfaces[2].url`, …), or undefined for another path. */
function fieldOf(hit: SpanHit, prefix: string): string | undefined {
  if (hit.path === `${prefix}url`) return interfaceField({ field: 'url' });
  const list = INTERFACE_LISTS.find((name) => hit.path === `${prefix}${name}.*.url`);
  return list === undefined ? undefined : entryField(list, hit);
}

/** The URL field of the list entry `hit` is in (its path is `list.*.…`: one index, the entry's). */
function entryField(list: InterfaceList, hit: SpanHit): string {
  return interfaceField({ field: list, index: hit.indices[0] as number });
}

/**
 * Which URL fields are of GRPC interfaces: per list entry its binding as `JSON.parse` would read
 * it (the last copy of `protocolBinding`, else of `transport`), and the 0.3 `url` by the card's
 * `preferredTransport` — the rule of `interfacesOf`, which `rewriteCard` reads.
 */
function grpcFields(hits: readonly SpanHit[], prefix: string): Set<string> {
  /** Per URL field, the last copy of each key naming its binding. */
  const last = new Map<string, Partial<Record<BindingKey, SpanHit>>>();
  const note = (field: string, key: BindingKey, hit: SpanHit) => last.set(field, { ...last.get(field), [key]: hit });
  for (const hit of hits) {
    if (hit.path === `${prefix}${MAIN_BINDING_KEY}`) note(interfaceField({ field: 'url' }), MAIN_BINDING_KEY, hit);
    for (const list of INTERFACE_LISTS) {
      const key = ENTRY_BINDING_KEYS.find((k) => hit.path === `${prefix}${list}.*.${k}`);
      if (key !== undefined) note(entryField(list, hit), key, hit);
    }
  }
  const grpc = new Set<string>();
  for (const [field, keys] of last) {
    // `protocolBinding ?? transport`: a null protocolBinding reads as absent.
    const binding = keys.protocolBinding?.type === 'null' ? undefined : keys.protocolBinding;
    const hit = binding ?? keys.transport ?? keys.preferredTransport;
    if (isGrpcBinding(hit?.text)) grpc.add(field);
  }
  return grpc;
}

export function rewriteCardBytes(
  body: Uint8Array,
  place: CardPlace,
  agentUrl: string,
  publicAgentUrl: string,
  /** The gateway's gRPC `host:port` for this agent (src/bindings/grpc/card-address.ts); undefined: none. */
  grpcAuthority?: string,
): CardBytesRewrite {
  const changed: UrlChange[] = [];
  const untouched: UntouchedUrl[] = [];
  const walked = locateJson(body, PLANS[place]);
  if (!walked.ok)
    return { body, changed, untouched, signaturesDropped: 0, notCard: `not valid JSON (byte ${walked.at})` };
  const { hits } = walked;
  const notCard = whyNotCard(hits, place);
  const cardPath = place === 'body' ? '' : 'result';
  if (notCard !== undefined || !hits.some((h) => h.path === cardPath && h.type === 'object')) {
    return notCard === undefined
      ? { body, changed, untouched, signaturesDropped: 0 }
      : { body, changed, untouched, signaturesDropped: 0, notCard };
  }

  const decide = interfaceRewriter(agentUrl, publicAgentUrl, grpcAuthority);
  const edits: ByteEdit[] = [];
  const prefix = cardPath === '' ? '' : `${cardPath}.`;
  const grpc = grpcFields(hits, prefix);
  for (const hit of hits) {
    const field = hit.type === 'string' ? fieldOf(hit, prefix) : undefined;
    if (field === undefined) continue;
    if (hit.text === undefined) {
      // Never re-encode bytes that are not UTF-8: the URL stays as the agent wrote it.
      untouched.push({ field, url: lenient.decode(body.subarray(hit.start + 1, hit.end - 1)), why: 'not valid UTF-8' });
      continue;
    }
    const decision = decide(hit.text, grpc.has(field));
    if ('why' in decision) {
      untouched.push({ field, url: hit.text, why: decision.why });
      continue;
    }
    changed.push({ field, from: hit.text, to: decision.to });
    if (decision.to !== hit.text) {
      edits.push({ start: hit.start, end: hit.end, bytes: encoder.encode(JSON.stringify(decision.to)) });
    }
  }

  let signaturesDropped = 0;
  if (changed.length > 0) {
    // Any change invalidates a JWS over the canonical card (spec §8.4, wire-reference §3).
    for (const card of hits) {
      if (card.path !== cardPath || card.members === undefined) continue;
      edits.push(...removals(card.members, (m) => m.key === 'signatures'));
    }
    for (const hit of hits) if (hit.path === `${prefix}signatures`) signaturesDropped += hit.count ?? 0;
  }
  return { body: edits.length > 0 ? spliceBytes(body, edits) : body, changed, untouched, signaturesDropped };
}
