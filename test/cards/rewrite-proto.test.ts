/**
 * The protobuf rewrite of a gRPC extended card (src/cards/rewrite-proto.ts), against cards the
 * SDK's own gRPC serializers encode (1.0 `GetExtendedAgentCard`, 0.3 `GetAgentCard`) and decoded
 * with its deserializers: the interface URLs move as `rewriteCard` moves them (one rule for every
 * card form), every other field is unchanged, and `signatures` go only when a URL changed.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { A2AService } from '@a2a-js/sdk/server/grpc';
import { LegacyA2AService } from '@a2a-js/sdk/compat/v0_3/server/grpc';
import { rewriteCard } from '../../src/cards/rewrite.js';
import { rewriteCardProto } from '../../src/cards/rewrite-proto.js';

const AGENT = 'http://127.0.0.1:9999/a2a';
const PUBLIC = 'https://gw.example.com/agents/a';
const GRPC = 'gw.example.com:7001';

type V1Card = Parameters<typeof A2AService.getExtendedAgentCard.responseSerialize>[0];
type V03Card = Parameters<typeof LegacyA2AService.getAgentCard.responseSerialize>[0];
type Iface = { url: string; protocolBinding: string; tenant: string; protocolVersion: string };

const encodeV1 = (card: V1Card) => new Uint8Array(A2AService.getExtendedAgentCard.responseSerialize(card));
const decodeV1 = (bytes: Uint8Array) => A2AService.getExtendedAgentCard.responseDeserialize(Buffer.from(bytes));
const encodeV03 = (card: V03Card) => new Uint8Array(LegacyA2AService.getAgentCard.responseSerialize(card));
const decodeV03 = (bytes: Uint8Array) => LegacyA2AService.getAgentCard.responseDeserialize(Buffer.from(bytes));

function v1Card(
  interfaces: Iface[],
  signatures = [{ protected: 'eyJhbGciOiJFUzI1NiJ9', signature: 'c2ln', header: undefined }],
): V1Card {
  return {
    name: 'reviewer',
    description: 'reviews things',
    supportedInterfaces: interfaces,
    provider: { url: `${AGENT}/about`, organization: 'acme' },
    version: '1.2.3',
    documentationUrl: `${AGENT}/docs`,
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: true },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['application/json'],
    skills: [],
    signatures,
    iconUrl: `${AGENT}/icon.png`,
  } as unknown as V1Card;
}

const iface = (url: string, protocolBinding: string, tenant = ''): Iface => ({
  url,
  protocolBinding,
  tenant,
  protocolVersion: '1.0',
});

describe('1.0 lf.a2a.v1.AgentCard', () => {
  it('points every interface at the gateway and drops the signatures; nothing else changes', () => {
    const card = v1Card([
      iface(`${AGENT}/jsonrpc`, 'JSONRPC'),
      iface('http://localhost:9999/a2a/rest', 'HTTP+JSON', 'team-a'),
      iface('127.0.0.1:50051', 'GRPC'),
      iface('http://127.0.0.1:50051', 'GRPC'),
      iface('https://elsewhere.example/a2a', 'JSONRPC'),
    ]);
    const out = rewriteCardProto(encodeV1(card), '1.0', AGENT, PUBLIC, GRPC);
    const decoded = decodeV1(out.body);
    expect(decoded.supportedInterfaces.map((i) => i.url)).toEqual([
      `${PUBLIC}/jsonrpc`,
      `${PUBLIC}/rest`,
      GRPC,
      `http://${GRPC}`,
      'https://elsewhere.example/a2a',
    ]);
    expect(decoded.supportedInterfaces.map((i) => [i.protocolBinding, i.tenant, i.protocolVersion])).toEqual(
      card.supportedInterfaces.map((i) => [i.protocolBinding, i.tenant, i.protocolVersion]),
    );
    expect(decoded.signatures).toEqual([]);
    expect(out.signaturesDropped).toBe(1);
    expect(out.untouched).toEqual([
      { field: 'supportedInterfaces[4].url', url: 'https://elsewhere.example/a2a', why: 'not under the agent URL' },
    ]);
    const rest = ({ supportedInterfaces: _i, signatures: _s, ...others }: Record<string, unknown>) => others;
    expect(rest(decoded as never)).toEqual(rest(decodeV1(encodeV1(card)) as never));
  });

  it('leaves the bytes as they are (signatures too) when no URL moves', () => {
    const bytes = encodeV1(
      v1Card([iface('https://elsewhere.example/a2a', 'JSONRPC'), iface('127.0.0.1:50051', 'GRPC')]),
    );
    const out = rewriteCardProto(bytes, '1.0', AGENT, PUBLIC); // no gRPC route: the GRPC address stays
    expect(out.body).toBe(bytes);
    expect(out.signaturesDropped).toBe(0);
    expect(out.untouched.map((u) => u.field)).toEqual(['supportedInterfaces[0].url', 'supportedInterfaces[1].url']);
  });

  it('copies fields it does not know, in place', () => {
    const unknown = Uint8Array.of(0xf8, 0x06, 0x2a); // field 111, varint 42
    const bytes = new Uint8Array([...unknown, ...encodeV1(v1Card([iface(`${AGENT}/jsonrpc`, 'JSONRPC')])), ...unknown]);
    const out = rewriteCardProto(bytes, '1.0', AGENT, PUBLIC, GRPC);
    expect(out.body.subarray(0, 3)).toEqual(unknown);
    expect(out.body.subarray(-3)).toEqual(unknown);
    expect(decodeV1(out.body).supportedInterfaces[0]!.url).toBe(`${PUBLIC}/jsonrpc`);
  });

  it('says so, and changes nothing, for bytes that are not protobuf', () => {
    const bytes = Uint8Array.of(0x0a, 0x10, 0x41);
    const out = rewriteCardProto(bytes, '1.0', AGENT, PUBLIC, GRPC);
    expect(out.body).toBe(bytes);
    expect(out.notCard).toBe('not valid protobuf');
  });

  it('leaves a URL that is not UTF-8 as the agent wrote it', () => {
    const bad = Uint8Array.of(0x1a, 0x04, 0x0a, 0x02, 0xc3, 0x28); // supported_interfaces { url: invalid UTF-8 }
    const out = rewriteCardProto(bad, '1.0', AGENT, PUBLIC, GRPC);
    expect(out.body).toBe(bad);
    expect(out.untouched[0]?.why).toBe('not valid UTF-8');
  });

  const urls = fc.constantFrom(
    `${AGENT}/jsonrpc`,
    'http://localhost:9999/a2a/rest?x=1',
    AGENT,
    'http://other.example:9999/a2a',
    'http://127.0.0.1:9999/elsewhere',
    'grpc-host:50051',
    'http://127.0.0.1:50051',
    'not a url',
  );
  const bindings = fc.constantFrom('JSONRPC', 'HTTP+JSON', 'GRPC', 'grpc');
  const interfaces = fc.array(
    fc.record({ url: urls, protocolBinding: bindings, tenant: fc.string(), protocolVersion: fc.constant('1.0') }),
    { maxLength: 5 },
  );

  it('moves the URLs as rewriteCard does, and drops signatures exactly when it does', () => {
    fc.assert(
      fc.property(interfaces, fc.boolean(), fc.option(fc.constant(GRPC), { nil: undefined }), (list, signed, grpc) => {
        const card = v1Card(list, signed ? [{ protected: 'p', signature: 's', header: undefined }] : []);
        const bytes = encodeV1(card);
        const out = rewriteCardProto(bytes, '1.0', AGENT, PUBLIC, grpc);
        const expected = rewriteCard(decodeV1(bytes) as never, AGENT, PUBLIC, grpc);
        const decoded = decodeV1(out.body);
        const want = expected.card as unknown as V1Card;
        expect(decoded.supportedInterfaces).toEqual(want.supportedInterfaces);
        expect(decoded.signatures).toEqual(want.signatures ?? []);
        expect(out.changed).toEqual(expected.changed);
        expect(out.untouched).toEqual(expected.untouched);
        expect(out.signaturesDropped).toBe(expected.signaturesDropped);
        if (out.changed.length === 0) expect(out.body).toBe(bytes);
      }),
      { numRuns: 200 },
    );
  });
});

describe('0.3 a2a.v1.AgentCard', () => {
  function v03Card(url: string, preferredTransport: string, additional: { url: string; transport: string }[]): V03Card {
    return {
      protocolVersion: '0.3.0',
      name: 'reviewer',
      description: 'reviews things',
      url,
      preferredTransport,
      additionalInterfaces: additional,
      provider: undefined,
      version: '1',
      documentationUrl: `${AGENT}/docs`,
      capabilities: { streaming: true, pushNotifications: false, extensions: [] },
      securitySchemes: {},
      security: [],
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [],
      supportsAuthenticatedExtendedCard: true,
      signatures: [{ protected: 'p', signature: 's', header: undefined }],
    } as unknown as V03Card;
  }

  it('moves `url` (by preferred_transport) and additional_interfaces, and drops the signatures', () => {
    const card = v03Card('http://127.0.0.1:50051', 'GRPC', [
      { url: `${AGENT}/jsonrpc`, transport: 'JSONRPC' },
      { url: '127.0.0.1:50051', transport: 'GRPC' },
    ]);
    const out = rewriteCardProto(encodeV03(card), '0.3', AGENT, PUBLIC, GRPC);
    const decoded = decodeV03(out.body);
    expect(decoded.url).toBe(`http://${GRPC}`);
    expect(decoded.additionalInterfaces).toEqual([
      { url: `${PUBLIC}/jsonrpc`, transport: 'JSONRPC' },
      { url: GRPC, transport: 'GRPC' },
    ]);
    expect(decoded.signatures).toEqual([]);
    const rest = ({ url: _u, additionalInterfaces: _a, signatures: _s, ...others }: Record<string, unknown>) => others;
    expect(rest(decoded as never)).toEqual(rest(decodeV03(encodeV03(card)) as never));
    const expected = rewriteCard(decodeV03(encodeV03(card)) as never, AGENT, PUBLIC, GRPC);
    expect(out.changed).toEqual(expected.changed);
  });

  it('keeps the signatures of a card whose URLs all stay', () => {
    const bytes = encodeV03(v03Card('https://elsewhere.example/a2a', 'JSONRPC', []));
    const out = rewriteCardProto(bytes, '0.3', AGENT, PUBLIC, GRPC);
    expect(out.body).toBe(bytes);
    expect(decodeV03(out.body).signatures).toHaveLength(1);
  });
});
