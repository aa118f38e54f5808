/**
 * Every reader of a card's interfaces sees the ones `interfacesOf` lists (src/a2a/card-interfaces.ts):
 * the object rewrite and the byte rewrite move or report exactly those (GRPC ones by the same
 * binding), the gRPC agents' addresses are its GRPC ones, the console's protocols and the card
 * findings are its bindings and versions. On every recorded card, and on each with half of its
 * interfaces turned GRPC (no recorded card has one).
 */
import { describe, expect, it } from 'vitest';
import { interfaceField, interfacesOf, isGrpcBinding } from '../../src/a2a/card-interfaces.js';
import { cardInterfaceUrls } from '../../src/a2a/card-findings.js';
import { rewriteCard } from '../../src/cards/rewrite.js';
import { rewriteCardBytes } from '../../src/cards/rewrite-bytes.js';
import { cardProtocols } from '../../src/console/card-protocols.js';
import { grpcInterfaces } from '../../src/bindings/grpc/agents.js';
import { recordedCards } from '../a2a/captures.js';

const PUBLIC = 'https://gw.example.com/agents/a';
const GRPC = 'gw.example.com:7001';

/** Every other interface (by list index; the 0.3 `url` too) turned GRPC. */
function halfGrpc(card: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = structuredClone(card);
  for (const [list, key] of [
    ['supportedInterfaces', 'protocolBinding'],
    ['additionalInterfaces', 'transport'],
  ] as const) {
    const entries = out[list];
    if (Array.isArray(entries)) entries.forEach((e: Record<string, unknown>, i) => i % 2 === 0 && (e[key] = 'GRPC'));
  }
  if ('url' in out) out['preferredTransport'] = 'GRPC';
  return out;
}

const cases = recordedCards().flatMap(({ name, agentUrl, card }) => [
  { name, agentUrl, card },
  { name: `${name}, half GRPC`, agentUrl, card: halfGrpc(card) },
]);

const moves = (changes: ReadonlyArray<{ field: string; from: string; to: string }>) =>
  changes.map(({ field, from, to }) => `${field} ${from} → ${to}`).sort();

describe('the readers of a card agree with interfacesOf', () => {
  it('has recorded cards to read, GRPC ones among the variants', () => {
    expect(cases.length).toBeGreaterThanOrEqual(12);
    expect(cases.some(({ card }) => grpcInterfaces(card).length > 0)).toBe(true);
  });

  it.each(cases)('$name: the rewrite moves or reports each interface, GRPC ones to the gRPC address', (c) => {
    const interfaces = interfacesOf(c.card);
    const rewrite = rewriteCard(c.card, c.agentUrl, PUBLIC, GRPC);
    expect(rewrite.untouched).toEqual([]); // every recorded URL lives under the agent's address
    expect(rewrite.changed.map((ch) => [ch.field, ch.from])).toEqual(
      interfaces.map((i) => [interfaceField(i.where), i.url]),
    );
    rewrite.changed.forEach((ch, n) => {
      const grpc = isGrpcBinding(interfaces[n]?.binding);
      expect(ch.to, ch.field).toBe(grpc ? `http://${GRPC}` : PUBLIC + new URL(ch.from).pathname.replace(/^\/$/, ''));
    });
  });

  it.each(cases)('$name: the byte rewrite makes the same moves', (c) => {
    const bytes = new TextEncoder().encode(JSON.stringify(c.card));
    const out = rewriteCardBytes(bytes, 'body', c.agentUrl, PUBLIC, GRPC);
    expect(out.untouched).toEqual([]);
    expect(moves(out.changed)).toEqual(moves(rewriteCard(c.card, c.agentUrl, PUBLIC, GRPC).changed));
  });

  it.each(cases)('$name: the gRPC addresses are the GRPC interfaces', (c) => {
    const grpc = interfacesOf(c.card).filter((i) => isGrpcBinding(i.binding));
    expect(
      grpcInterfaces(c.card)
        .map((i) => `${i.url} ${i.version}`)
        .sort(),
    ).toEqual(grpc.map((i) => `${i.url} ${i.version}`).sort());
  });

  it.each(cases)('$name: the console and the findings name its bindings and versions', (c) => {
    const interfaces = interfacesOf(c.card);
    const versions = interfaces.flatMap((i) => /^\d+\.\d+/.exec(i.version ?? '') ?? []);
    expect(cardProtocols(c.card)).toEqual({
      protocolVersions: [...new Set(versions)].sort().reverse(),
      bindings: [...new Set(interfaces.flatMap((i) => i.binding ?? []))],
    });
    expect(cardInterfaceUrls(c.card)).toEqual(interfaces.map(({ url, binding }) => ({ url, binding })));
  });

  it('the console on the compat hybrid: both versions, both bindings; with GRPC ones, GRPC too', () => {
    const hybrid = cases.find((c) => c.name === 'v1compat--v03client-jsonrpc-card.http')!.card;
    expect(cardProtocols(hybrid)).toEqual({ protocolVersions: ['1.0', '0.3'], bindings: ['JSONRPC', 'HTTP+JSON'] });
    expect(cardProtocols(halfGrpc(hybrid)).bindings).toEqual(['GRPC', 'HTTP+JSON']);
  });
});
