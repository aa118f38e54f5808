// The held gRPC answer (src/bindings/grpc/held-answer.ts): one plain message goes to the rewrite and comes
// back framed; anything else is the rewrite's to judge; past `maxBytes` it is refused, whole.
import { describe, expect, it } from 'vitest';
import { encodeGrpcFrame } from '../../src/codec/grpc-frames.js';
import { HeldAnswer, type HeldResult } from '../../src/bindings/grpc/held-answer.js';
import type { MessageRewrite } from '../../src/exchange/answer-rewrite.js';

const upper: MessageRewrite = {
  apply: (message) => ({ message: new TextEncoder().encode(new TextDecoder().decode(message).toUpperCase()) }),
  unreadable: (why) => ({ asIs: true, findings: [{ rule: 'a2a.extended-card-not-a-card', count: 1, detail: why }] }),
};

async function held(chunks: Uint8Array[], maxBytes = 100): Promise<HeldResult | Error> {
  const answer = new HeldAnswer({ message: upper, maxBytes }, 'x');
  for (const chunk of chunks) {
    const refusal = answer.push(Buffer.from(chunk));
    if (refusal) return refusal;
  }
  return answer.rewritten();
}

const frame = (text: string) => encodeGrpcFrame(new TextEncoder().encode(text));

describe('HeldAnswer', () => {
  it('rewrites one message, however it was split, and frames it anew', async () => {
    const whole = frame('hello');
    const out = await held([whole.subarray(0, 2), whole.subarray(2, 6), whole.subarray(6)]);
    expect(out).toEqual({ body: Buffer.from(frame('HELLO')), findings: [] });
  });

  it.each([
    ['two messages', [frame('a'), frame('b')], 'the answer holds 2 messages, not one'],
    ['a cut message', [frame('hello').subarray(0, 7)], 'the answer ends inside a message'],
    ['a compressed message', [Uint8Array.of(1, 0, 0, 0, 1, 0x41)], 'the answer is compressed'],
    ['no message', [], 'the answer holds 0 messages, not one'],
  ])('leaves %s to the rewrite', async (_, chunks, why) => {
    const out = await held(chunks);
    expect(out).toEqual({
      body: Buffer.concat(chunks),
      findings: [{ rule: 'a2a.extended-card-not-a-card', count: 1, detail: why }],
    });
  });

  it('refuses an answer past maxBytes (its prefix aside)', async () => {
    expect(await held([frame('x'.repeat(100))])).toMatchObject({ body: Buffer.from(frame('X'.repeat(100))) });
    const out = await held([frame('x'.repeat(60)), frame('x'.repeat(60))]);
    expect(out).toBeInstanceOf(Error);
    expect((out as Error).message).toContain('larger than the 100 bytes');
  });
});
