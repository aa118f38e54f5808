/**
 * `interfacesOf`: every interface of a 1.0, 0.3 or hybrid card (wire-reference §3, §6.5), in card
 * order, with its binding, version and field; the recorded cards; what is no interface.
 */
import { describe, expect, it } from 'vitest';
import {
  interfaceField,
  interfacesOf,
  isGrpcBinding,
  type CardInterface,
  restBasePaths,
} from '../../src/a2a/card-interfaces.js';
import { recordedCards } from './captures.js';

const si = (index: number) => ({ field: 'supportedInterfaces', index }) as const;
const ai = (index: number) => ({ field: 'additionalInterfaces', index }) as const;
const main = { field: 'url' } as const;

describe('interfacesOf', () => {
  it.each<[string, unknown, CardInterface[]]>([
    [
      '1.0: each supportedInterfaces entry with its own binding and version',
      {
        supportedInterfaces: [
          { url: 'http://a/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
          { url: 'a:1', protocolBinding: 'GRPC', protocolVersion: '1.0' },
          { url: 'http://a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
        ],
      },
      [
        { url: 'http://a/rpc', binding: 'JSONRPC', version: '1.0', where: si(0) },
        { url: 'a:1', binding: 'GRPC', version: '1.0', where: si(1) },
        { url: 'http://a/rest', binding: 'HTTP+JSON', version: '0.3', where: si(2) },
      ],
    ],
    [
      '0.3: url by preferredTransport, then additionalInterfaces by transport, under the card version',
      {
        protocolVersion: '0.3.0',
        url: 'http://b/rpc',
        preferredTransport: 'GRPC',
        additionalInterfaces: [
          { url: 'http://b/rpc', transport: 'JSONRPC' },
          { url: 'http://b/rest', transport: 'HTTP+JSON' },
        ],
      },
      [
        { url: 'http://b/rpc', binding: 'GRPC', version: '0.3.0', where: main },
        { url: 'http://b/rpc', binding: 'JSONRPC', version: '0.3.0', where: ai(0) },
        { url: 'http://b/rest', binding: 'HTTP+JSON', version: '0.3.0', where: ai(1) },
      ],
    ],
    [
      '0.3 without preferredTransport or protocolVersion: JSONRPC, 0.3',
      {
        url: 'http://b/',
        additionalInterfaces: [{ url: 'http://b/x', transport: 'HTTP+JSON', protocolVersion: '0.2' }],
      },
      [
        { url: 'http://b/', binding: 'JSONRPC', version: '0.3', where: main },
        { url: 'http://b/x', binding: 'HTTP+JSON', version: '0.2', where: ai(0) },
      ],
    ],
    [
      'hybrid: the 1.0 list first, its entries not given the 0.3 top-level version',
      {
        protocolVersion: '0.3',
        supportedInterfaces: [{ url: 'http://c/rpc', protocolBinding: 'JSONRPC' }],
        url: 'http://c/rpc',
        additionalInterfaces: [{ url: 'http://c/rest', transport: 'HTTP+JSON' }],
      },
      [
        { url: 'http://c/rpc', binding: 'JSONRPC', version: undefined, where: si(0) },
        { url: 'http://c/rpc', binding: 'JSONRPC', version: '0.3', where: main },
        { url: 'http://c/rest', binding: 'HTTP+JSON', version: '0.3', where: ai(0) },
      ],
    ],
    [
      'binding: protocolBinding ?? transport in either list, null read as absent, case kept',
      {
        supportedInterfaces: [
          { url: 'u0', transport: 'GRPC' },
          { url: 'u1', protocolBinding: null, transport: 'grpc' },
          { url: 'u2', protocolBinding: 7, transport: 'GRPC' },
          { url: 'u3' },
        ],
        additionalInterfaces: [{ url: 'u4', protocolBinding: 'JSONRPC', transport: 'GRPC' }],
        preferredTransport: 7,
        url: 'u5',
      },
      [
        { url: 'u0', binding: 'GRPC', version: undefined, where: si(0) },
        { url: 'u1', binding: 'grpc', version: undefined, where: si(1) },
        { url: 'u2', binding: undefined, version: undefined, where: si(2) },
        { url: 'u3', binding: undefined, version: undefined, where: si(3) },
        { url: 'u5', binding: 'JSONRPC', version: '0.3', where: main },
        { url: 'u4', binding: 'JSONRPC', version: '0.3', where: ai(0) },
      ],
    ],
    [
      'entries that are no interface are skipped, the others keep their index',
      {
        supportedInterfaces: [null, 7, 'http://x/', [], {}, { url: 5 }, { url: null }, { url: 'http://ok/' }],
        additionalInterfaces: [{ url: ['http://x/'] }, { url: 'http://ok2/' }],
        protocolVersion: 3,
      },
      [
        { url: 'http://ok/', binding: undefined, version: undefined, where: si(7) },
        { url: 'http://ok2/', binding: undefined, version: '0.3', where: ai(1) },
      ],
    ],
    [
      'duplicates stay, each at its own field',
      { supportedInterfaces: [{ url: 'http://d/' }, { url: 'http://d/' }], url: 'http://d/' },
      [
        { url: 'http://d/', binding: undefined, version: undefined, where: si(0) },
        { url: 'http://d/', binding: undefined, version: undefined, where: si(1) },
        { url: 'http://d/', binding: 'JSONRPC', version: '0.3', where: main },
      ],
    ],
  ])('%s', (_, card, expected) => {
    expect(interfacesOf(card)).toEqual(expected);
  });

  it.each<[string, unknown]>([
    ['undefined', undefined],
    ['null', null],
    ['a string', 'http://a/'],
    ['a number', 1],
    ['an array', [{ url: 'http://a/' }]],
    ['an object without interfaces', { name: 'x', provider: { url: 'http://a/' } }],
    [
      'lists that are no arrays, a url that is no string',
      {
        supportedInterfaces: { 0: { url: 'http://a/' } },
        additionalInterfaces: 'http://a/',
        url: { href: 'http://a/' },
        preferredTransport: 'GRPC',
      },
    ],
  ])('%s has none', (_, card) => {
    expect(interfacesOf(card)).toEqual([]);
  });

  it('names each field as the rewrite reports it', () => {
    expect([main, si(2), ai(0)].map(interfaceField)).toEqual([
      'url',
      'supportedInterfaces[2].url',
      'additionalInterfaces[0].url',
    ]);
  });

  it('isGrpcBinding: GRPC in any case, nothing else', () => {
    expect(['GRPC', 'grpc', 'gRPC'].map(isGrpcBinding)).toEqual([true, true, true]);
    expect(['JSONRPC', 'HTTP+JSON', 'GRPC ', '', undefined, null, 7].map(isGrpcBinding)).toEqual(Array(7).fill(false));
  });
});

describe('interfacesOf on the recorded cards', () => {
  const cards = recordedCards();
  const byName = new Map(cards.map((c) => [c.name, c.card]));
  const shape = (name: string) =>
    interfacesOf(byName.get(name)).map((i) => [interfaceField(i.where), i.binding, i.version, new URL(i.url).pathname]);

  it('finds the card captures', () => {
    expect(cards.map((c) => c.name)).toEqual(
      expect.arrayContaining([
        'v1--jsonrpc-card.http',
        'v03--jsonrpc-card.http',
        'v1compat--v03client-jsonrpc-card.http',
      ]),
    );
  });

  it('1.0 (SDK 1.3.0): JSON-RPC and HTTP+JSON, 1.0', () => {
    expect(shape('v1--jsonrpc-card.http')).toEqual([
      ['supportedInterfaces[0].url', 'JSONRPC', '1.0', '/a2a/jsonrpc'],
      ['supportedInterfaces[1].url', 'HTTP+JSON', '1.0', '/a2a/rest'],
    ]);
  });

  it('0.3 (SDK 0.3.14): url by preferredTransport, additionalInterfaces, the card version', () => {
    expect(shape('v03--jsonrpc-card.http')).toEqual([
      ['url', 'JSONRPC', '0.3.0', '/a2a/jsonrpc'],
      ['additionalInterfaces[0].url', 'JSONRPC', '0.3.0', '/a2a/jsonrpc'],
      ['additionalInterfaces[1].url', 'HTTP+JSON', '0.3.0', '/a2a/rest'],
    ]);
  });

  it('the compat hybrid: the 1.0 list twice over (1.0 and 0.3), then the 0.3 fields', () => {
    expect(shape('v1compat--v03client-jsonrpc-card.http')).toEqual([
      ['supportedInterfaces[0].url', 'JSONRPC', '1.0', '/a2a/jsonrpc'],
      ['supportedInterfaces[1].url', 'HTTP+JSON', '1.0', '/a2a/rest'],
      ['supportedInterfaces[2].url', 'JSONRPC', '0.3', '/a2a/jsonrpc'],
      ['supportedInterfaces[3].url', 'HTTP+JSON', '0.3', '/a2a/rest'],
      ['url', 'JSONRPC', '0.3', '/a2a/jsonrpc'],
      ['additionalInterfaces[0].url', 'HTTP+JSON', '0.3', '/a2a/rest'],
    ]);
  });

  it('every recorded card has interfaces, each URL one the JSON text holds', () => {
    for (const { name, card, text } of cards) {
      const found = interfacesOf(card);
      expect(found.length, name).toBeGreaterThan(0);
      for (const i of found) expect(text, name).toContain(JSON.stringify(i.url));
    }
  });
});

describe('restBasePaths', () => {
  it("lists the HTTP+JSON interfaces' paths below the agent's mount path, in any card form", () => {
    const card = {
      supportedInterfaces: [
        { url: 'http://a:1/x/a2a/rest/', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
        { url: 'http://a:1/x/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: 'http://elsewhere/y/rest', protocolBinding: 'http+json', protocolVersion: '1.0' },
      ],
      additionalInterfaces: [{ url: 'http://a:1/x', transport: 'HTTP+JSON' }],
    };
    expect(restBasePaths(card, '/x')).toEqual(['/a2a/rest', '']);
    expect(restBasePaths(card, '')).toEqual(['/x/a2a/rest', '/y/rest', '/x']);
    expect(restBasePaths('no card', '')).toEqual([]);
  });
});
