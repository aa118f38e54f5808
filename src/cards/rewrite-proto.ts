/**
 * Agent-card rewrite inside the protobuf bytes of a gRPC extended card (pure): 1.0
 * `GetExtendedAgentCard` answers an `lf.a2a.v1.AgentCard`, 0.3 `GetAgentCard` an
 * `a2a.v1.AgentCard` (docs/proto/a2a-v1.0.0.proto, a2a-v0.3.0.proto). As for the JSON card
 * (rewrite-bytes.ts), only the interface URLs change, with the one decision every card form shares
 * (`interfaceRewriter`, rewrite.ts): every field is copied as the agent encoded it, in order,
 * except each AgentInterface whose url moves, which is re-encoded with the new url (its other
 * fields raw, in order), and the 0.3 card's own `url`. When a URL changed, the `signatures` go
 * (spec §8.4: the JWS no longer verifies). Every occurrence counts: a repeated `url` is rewritten
 * in each copy (a decoder keeps the last one, protobuf encoding guide "Last One Wins").
 */
import type { ProtocolVersion } from '../a2a/operations.js';
import { concatBytes, lengthDelimitedField, rawFields, tryDecode, type RawField } from '../a2a/grpc/proto-read.js';
import type { CardBytesRewrite } from './rewrite-bytes.js';
import { interfaceField, isGrpcBinding, type InterfaceList } from '../a2a/card-interfaces.js';
import { interfaceRewriter, type UntouchedUrl, type UrlChange } from './rewrite.js';

/** Field numbers of AgentCard in each version. */
interface CardFields {
  /** 1.0 `supported_interfaces` 3; 0.3 `additional_interfaces` 15 (repeated AgentInterface). */
  readonly interfaces: number;
  /** The JSON name, for the reports (the field names of `interfacesOf`, src/a2a/card-interfaces.ts). */
  readonly interfacesName: InterfaceList;
  /** 1.0 13, 0.3 17 (repeated AgentCardSignature). */
  readonly signatures: number;
  /** 0.3 only: the card's main `url` 3 and its `preferred_transport` 14. */
  readonly url?: number;
  readonly preferredTransport?: number;
}

const FIELDS: Readonly<Record<ProtocolVersion, CardFields>> = {
  '1.0': { interfaces: 3, interfacesName: 'supportedInterfaces', signatures: 13 },
  '0.3': { interfaces: 15, interfacesName: 'additionalInterfaces', signatures: 17, url: 3, preferredTransport: 14 },
};

/** AgentInterface (both versions): url 1; 1.0 `protocol_binding` 2, 0.3 `transport` 2. */
const INTERFACE_URL = 1;
const INTERFACE_BINDING = 2;

const strict = new TextDecoder('utf-8', { fatal: true });
const lenient = new TextDecoder();
const encoder = new TextEncoder();

function utf8(bytes: Uint8Array): string | undefined {
  return tryDecode(() => strict.decode(bytes));
}

/** The last string of field `no` (proto3: the last one wins), if any. */
function lastString(fields: readonly RawField[], no: number): string | undefined {
  let found: string | undefined;
  for (const f of fields) if (f.no === no && f.value !== undefined) found = utf8(f.value) ?? found;
  return found;
}

/** Decides URLs and keeps the report; returns the new bytes of a URL that moved. */
class UrlEdits {
  readonly changed: UrlChange[] = [];
  readonly untouched: UntouchedUrl[] = [];
  private readonly decide;

  constructor(agentUrl: string, publicAgentUrl: string, grpcAuthority: string | undefined) {
    this.decide = interfaceRewriter(agentUrl, publicAgentUrl, grpcAuthority);
  }

  moved(field: string, value: Uint8Array, grpc: boolean): Uint8Array | undefined {
    const url = utf8(value);
    if (url === undefined) {
      // Never re-encode bytes that are not UTF-8: the URL stays as the agent wrote it.
      this.untouched.push({ field, url: lenient.decode(value), why: 'not valid UTF-8' });
      return undefined;
    }
    const decision = this.decide(url, grpc);
    if ('why' in decision) {
      this.untouched.push({ field, url, why: decision.why });
      return undefined;
    }
    this.changed.push({ field, from: url, to: decision.to });
    return decision.to === url ? undefined : encoder.encode(decision.to);
  }
}

/** An AgentInterface with its url(s) moved, or undefined when it stays as it is. */
function rewriteInterface(bytes: Uint8Array, field: string, edits: UrlEdits): Uint8Array | undefined {
  const fields = tryDecode(() => rawFields(bytes));
  if (fields === undefined) {
    edits.untouched.push({ field, url: '', why: 'the AgentInterface is not valid protobuf' });
    return undefined;
  }
  const grpc = isGrpcBinding(lastString(fields, INTERFACE_BINDING));
  let edited = false;
  const parts = fields.map((f) => {
    const to = f.no === INTERFACE_URL && f.value !== undefined ? edits.moved(field, f.value, grpc) : undefined;
    if (to === undefined) return f.raw;
    edited = true;
    return lengthDelimitedField(INTERFACE_URL, to);
  });
  return edited ? concatBytes(parts) : undefined;
}

export function rewriteCardProto(
  card: Uint8Array,
  version: ProtocolVersion,
  agentUrl: string,
  publicAgentUrl: string,
  /** The gateway's gRPC `host:port` for this agent (src/bindings/grpc/card-address.ts); undefined: none. */
  grpcAuthority?: string,
): CardBytesRewrite {
  const edits = new UrlEdits(agentUrl, publicAgentUrl, grpcAuthority);
  const { changed, untouched } = edits;
  const fields = tryDecode(() => rawFields(card));
  if (fields === undefined)
    return { body: card, changed, untouched, signaturesDropped: 0, notCard: 'not valid protobuf' };
  const spec = FIELDS[version];
  const mainGrpc = spec.preferredTransport !== undefined && isGrpcBinding(lastString(fields, spec.preferredTransport));
  let index = 0;
  let edited = false;
  const parts = fields.map((f) => {
    let out: Uint8Array | undefined;
    if (f.value !== undefined && f.no === spec.interfaces) {
      const field = interfaceField({ field: spec.interfacesName, index: index++ });
      const entry = rewriteInterface(f.value, field, edits);
      out = entry && lengthDelimitedField(f.no, entry);
    } else if (f.value !== undefined && f.no === spec.url) {
      const to = edits.moved(interfaceField({ field: 'url' }), f.value, mainGrpc);
      out = to && lengthDelimitedField(f.no, to);
    }
    if (out !== undefined) edited = true;
    return { no: f.no, bytes: out ?? f.raw };
  });
  // Any change invalidates a JWS over the canonical card (spec §8.4, wire-reference §3).
  const drop = changed.length > 0 ? parts.filter((p) => p.no === spec.signatures).length : 0;
  if (!edited && drop === 0) return { body: card, changed, untouched, signaturesDropped: 0 };
  const kept = parts.filter((p) => drop === 0 || p.no !== spec.signatures).map((p) => p.bytes);
  return { body: concatBytes(kept), changed, untouched, signaturesDropped: drop };
}
