/** The key of an idempotent send and its fingerprint (src/idempotency/key.ts, pure). */
import { describe, expect, it } from 'vitest';
import { fingerprintOf, sendKeyOf, type KeyInput } from '../../src/idempotency/key.js';
import type { RequestFacts } from '../../src/a2a/request.js';

const facts = (over: Partial<RequestFacts> = {}): RequestFacts =>
  ({ binding: 'jsonrpc', operation: 'SendMessage', messageId: 'm-1', partial: false, ...over }) as RequestFacts;
const input = (over: Partial<KeyInput> = {}): KeyInput => ({
  agent: 'a',
  facts: facts(),
  header: undefined,
  principal: undefined,
  clientAddress: '127.0.0.1',
  maxKeyLength: 16,
  ...over,
});
const keyOf = (over: Partial<KeyInput> = {}) => {
  const key = sendKeyOf(input(over));
  return key.covered && key.refused === undefined ? key.key : undefined;
};

describe('which calls are covered', () => {
  it('a unary SendMessage with a messageId, on every binding', () => {
    for (const binding of ['jsonrpc', 'rest', 'grpc'] as const)
      expect(sendKeyOf(input({ facts: facts({ binding }) }))).toMatchObject({ covered: true, source: 'messageId' });
  });

  it('not SendStreamingMessage, other operations, a body read in part, or no messageId and no header', () => {
    for (const f of [
      facts({ operation: 'SendStreamingMessage' }),
      facts({ operation: 'GetTask' }),
      facts({ partial: true }),
      facts({ messageId: undefined }),
      facts({ binding: 'unknown' }),
      undefined,
    ])
      expect(sendKeyOf(input({ facts: f }))).toEqual({ covered: false });
  });
});

describe('the key', () => {
  it('is the Idempotency-Key header when sent, else the messageId, in namespaces of their own', () => {
    expect(sendKeyOf(input({ header: 'k1' }))).toMatchObject({ source: 'idempotency-key' });
    expect(keyOf({ header: 'm-1' })).not.toBe(keyOf());
    expect(keyOf({ header: 'k1', facts: facts({ messageId: 'other' }) })).toBe(keyOf({ header: 'k1' }));
  });

  it('is scoped to the agent and the principal, else the client address', () => {
    expect(keyOf({ agent: 'b' })).not.toBe(keyOf());
    expect(keyOf({ principal: 'alice' })).not.toBe(keyOf({ principal: 'bob' }));
    expect(keyOf({ principal: 'alice', clientAddress: '10.0.0.1' })).toBe(keyOf({ principal: 'alice' }));
    expect(keyOf({ clientAddress: '10.0.0.1' })).not.toBe(keyOf());
    // An address that reads like a principal is still another scope.
    expect(keyOf({ clientAddress: 'alice' })).not.toBe(keyOf({ principal: 'alice' }));
  });

  it('holds neither the principal nor the key in clear', () => {
    const key = keyOf({ principal: 'alice@example.com', header: 'secret-k' })!;
    expect(key).not.toContain('alice');
    expect(key).not.toContain('secret');
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('refuses an empty Idempotency-Key or one longer than maxKeyLength', () => {
    expect(sendKeyOf(input({ header: '' }))).toMatchObject({ covered: true, refused: expect.any(String) });
    expect(sendKeyOf(input({ header: 'x'.repeat(17) }))).toMatchObject({ refused: expect.stringContaining('16') });
    expect(sendKeyOf(input({ header: 'x'.repeat(16) }))).toMatchObject({ source: 'idempotency-key' });
  });
});

describe('the fingerprint', () => {
  const rpc = (message: unknown, id = 1, configuration = {}) => ({
    jsonrpc: '2.0',
    id,
    method: 'SendMessage',
    params: { message, configuration },
  });
  const none = Buffer.alloc(0);

  it('is the message: a retry may change its JSON-RPC id and configuration', () => {
    const m = { messageId: 'm-1', parts: [{ text: 'hi' }] };
    const a = fingerprintOf(facts(), rpc(m, 1), none);
    expect(fingerprintOf(facts(), rpc(m, 2, { returnImmediately: true }), none)).toBe(a);
    expect(fingerprintOf(facts(), rpc({ ...m, parts: [{ text: 'ho' }] }), none)).not.toBe(a);
  });

  it('differs across bindings for the same message', () => {
    const m = { messageId: 'm-1' };
    expect(fingerprintOf(facts({ binding: 'rest' }), { message: m }, none)).not.toBe(
      fingerprintOf(facts(), rpc(m), none),
    );
  });

  it('is the request bytes on gRPC', () => {
    const g = facts({ binding: 'grpc' });
    expect(fingerprintOf(g, undefined, Buffer.from([0, 1]))).not.toBe(fingerprintOf(g, undefined, Buffer.from([0, 2])));
    expect(fingerprintOf(g, undefined, Buffer.from([0, 1]))).toBe(fingerprintOf(g, undefined, Buffer.from([0, 1])));
  });
});
