/**
 * The key of an idempotent send, from the call's facts alone (pure; docs/fleet.md "Idempotent
 * sends"). Covered: a unary SendMessage (blocking or not) on any binding, read whole. Not
 * covered: SendStreamingMessage — a stream cut mid-way is resumed with Last-Event-ID (stream
 * resume), not replayed — and a body larger than the read-ahead (its message is not read whole).
 *
 * The key is the `Idempotency-Key` header when sent (draft-ietf-httpapi-idempotency-key-header
 * §2), else the message's own `messageId` (A2A §3.2.1: the client's id of the message; a retry
 * sends the same one). Its scope is the agent and the caller: the principal access control
 * found (`record.access.principal`), else — an anonymous caller — the client's address, so two
 * callers never see each other's outcomes. What is kept is a SHA-256 of all of it: the principal
 * is personal data (docs/security.md), and the store's keys have one length.
 */
import { createHash } from 'node:crypto';
import type { RequestFacts } from '../a2a/request.js';

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

export interface KeyInput {
  readonly agent: string;
  readonly facts: RequestFacts | undefined;
  /** The `Idempotency-Key` header as node:http gives it (repeated ones joined). */
  readonly header: string | string[] | undefined;
  readonly principal: string | undefined;
  /** The client's address (src/transport/peer.ts clientAddress): the scope of an anonymous caller. */
  readonly clientAddress: string;
  readonly maxKeyLength: number;
}

export type SendKey =
  | { readonly covered: false }
  | { readonly covered: true; readonly refused: string }
  | { readonly covered: true; readonly refused?: undefined; readonly key: string; readonly source: KeySource };

export type KeySource = 'idempotency-key' | 'messageId';

const NOT_COVERED: SendKey = { covered: false };

/** The send's key, or why its `Idempotency-Key` is refused, or not covered at all. */
export function sendKeyOf(input: KeyInput): SendKey {
  const { facts } = input;
  if (!facts || facts.binding === 'unknown' || facts.operation !== 'SendMessage' || facts.partial) return NOT_COVERED;
  const header = Array.isArray(input.header) ? input.header.join(', ') : input.header;
  if (header !== undefined) {
    if (header.length === 0 || header.length > input.maxKeyLength)
      return { covered: true, refused: `Idempotency-Key must be 1 to ${input.maxKeyLength} characters` };
    return { covered: true, key: scoped(input, 'idempotency-key', header), source: 'idempotency-key' };
  }
  if (!facts.messageId) return NOT_COVERED;
  return { covered: true, key: scoped(input, 'messageId', facts.messageId), source: 'messageId' };
}

function scoped(input: KeyInput, source: KeySource, value: string): string {
  const scope = input.principal !== undefined ? ['principal', input.principal] : ['address', input.clientAddress];
  return sha256(JSON.stringify([input.agent, ...scope, source, value]));
}

/**
 * What must be the same for a duplicate to be one: the binding and the message itself (JSON: the
 * `message` member as parsed, so a retry may change `configuration` — e.g. blocking — and its
 * JSON-RPC id; gRPC: the request's bytes). Another body under the same key is refused (422).
 */
export function fingerprintOf(facts: RequestFacts, document: unknown, bytes: Buffer): string {
  if (facts.binding === 'grpc' || document === undefined) return sha256(`${facts.binding}\n`, bytes);
  const doc = document as { params?: { message?: unknown }; message?: unknown } | null;
  const message = facts.binding === 'jsonrpc' ? doc?.params?.message : doc?.message;
  return sha256(`${facts.binding}\n${JSON.stringify(message ?? null)}`);
}

function sha256(text: string, bytes?: Buffer): string {
  const hash = createHash('sha256').update(text);
  if (bytes) hash.update(bytes);
  return hash.digest('base64url');
}
