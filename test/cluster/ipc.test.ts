/** Questions and answers over IPC (src/cluster/ipc.ts), with two in-memory ends of a channel. */
import { describe, expect, it } from 'vitest';
import {
  Asker,
  IpcTimeoutError,
  answer,
  isQuestion,
  topicOf,
  type Handlers,
  type Send,
} from '../../src/cluster/ipc.js';

/** A channel: what one side sends, the other receives on a later tick (as IPC delivers). */
function channel(handlers: Handlers, opts: { drop?: boolean; delayMs?: number } = {}) {
  const asker = new Asker();
  const toAsker: Send = (m) => setTimeout(() => asker.receive(JSON.parse(JSON.stringify(m))), opts.delayMs ?? 0);
  const toAnswerer: Send = (m) => {
    const copy = JSON.parse(JSON.stringify(m));
    if (!opts.drop && isQuestion(copy)) setTimeout(() => void answer(copy, handlers, toAsker), 0);
  };
  return { asker, send: toAnswerer };
}

describe('ipc', () => {
  it('matches each answer to its question, whatever order they come back in', async () => {
    const { asker, send } = channel({
      echo: async (body) => {
        const { n } = body as { n: number };
        await new Promise((r) => setTimeout(r, (5 - n) * 5)); // the first asked answers last
        return { n };
      },
    });
    const answers = await Promise.all([0, 1, 2, 3, 4].map((n) => asker.ask(send, 'echo', { n }, 1000)));
    expect(answers).toEqual([0, 1, 2, 3, 4].map((n) => ({ n })));
    expect(asker.size).toBe(0);
  });

  it('a throwing handler, or no handler, is an error for the asker', async () => {
    const { asker, send } = channel({
      broken: () => {
        throw new Error('no luck');
      },
    });
    await expect(asker.ask(send, 'broken', undefined, 1000)).rejects.toThrow('no luck');
    await expect(asker.ask(send, 'unknown', undefined, 1000)).rejects.toThrow('nothing answers a2a-gateway:unknown');
  });

  it('a question nobody answers fails at its timeout; a late answer is ignored', async () => {
    const dropped = channel({}, { drop: true });
    await expect(dropped.asker.ask(dropped.send, 'x', undefined, 20)).rejects.toBeInstanceOf(IpcTimeoutError);
    expect(dropped.asker.size).toBe(0);

    const late = channel({ slow: () => 'late' }, { delayMs: 50 });
    await expect(late.asker.ask(late.send, 'slow', undefined, 10)).rejects.toBeInstanceOf(IpcTimeoutError);
    await new Promise((r) => setTimeout(r, 80)); // the answer arrives now, and changes nothing
    expect(late.asker.size).toBe(0);
  });

  it('forget(peer) fails that peer’s questions at once, and only those', async () => {
    const asker = new Asker();
    const silent: Send = () => {};
    const a = asker.ask(silent, 'q', undefined, 60_000, 'worker-a');
    const b = asker.ask(silent, 'q', undefined, 50, 'worker-b');
    asker.forget('worker-a');
    await expect(a).rejects.toThrow('the peer is gone');
    await expect(b).rejects.toBeInstanceOf(IpcTimeoutError);
  });

  it('a send that throws (closed channel) fails the question', async () => {
    const asker = new Asker();
    await expect(
      asker.ask(
        () => {
          throw new Error('channel closed');
        },
        'q',
        undefined,
        60_000,
      ),
    ).rejects.toThrow('channel closed');
    expect(asker.size).toBe(0);
  });

  it('leaves other libraries’ messages alone', () => {
    const asker = new Asker();
    expect(asker.receive({ type: 'prom-client:getMetricsRes', requestId: 1 })).toBe(false);
    expect(asker.receive('hello')).toBe(false);
    expect(asker.receive(null)).toBe(false);
    expect(topicOf({ type: 'a2a-gateway:listening' })).toBe('listening');
    expect(isQuestion({ type: 'a2a-gateway:listening' })).toBe(false); // a notice: no id
    expect(isQuestion({ type: 'a2a-gateway:reload', id: 3 })).toBe(true);
    expect(isQuestion({ type: 'a2a-gateway:answer', id: 3 })).toBe(false);
  });
});
