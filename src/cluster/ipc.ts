/**
 * Questions and answers over the cluster's IPC channel (`process.send` / `worker.send`), which
 * only carries one-way messages: each question gets an id, its answer carries the id back, and
 * a question nobody answers fails after a timeout instead of waiting forever (a worker can die
 * between the two). No node:cluster here: the caller passes how to send, so the matching can be
 * tested in memory (test/cluster/ipc.test.ts).
 *
 * A question is `{ type: 'a2a-gateway:<topic>', id, body }`, an answer is
 * `{ type: 'a2a-gateway:answer', id, ok, body | error }`. Notices (no answer expected) are
 * `{ type: 'a2a-gateway:<topic>' }` without an id.
 */

export const PREFIX = 'a2a-gateway:';
const ANSWER = `${PREFIX}answer`;

export interface Question {
  readonly type: string;
  readonly id: number;
  readonly body?: unknown;
}

interface Answer {
  readonly type: typeof ANSWER;
  readonly id: number;
  readonly ok: boolean;
  readonly body?: unknown;
  readonly error?: string;
}

export type Send = (message: object) => void;

/** What a side answers: topic (without the prefix) → handler of the question's body. */
export type Handlers = Readonly<Record<string, (body: unknown) => unknown>>;

export class IpcTimeoutError extends Error {}

/** The gateway's own messages only: other libraries share the channel. */
export function topicOf(message: unknown): string | undefined {
  const type = (message as { type?: unknown } | null)?.type;
  return typeof type === 'string' && type.startsWith(PREFIX) ? type.slice(PREFIX.length) : undefined;
}

export function isQuestion(message: unknown): message is Question {
  return (
    topicOf(message) !== undefined && topicOf(message) !== 'answer' && typeof (message as Question).id === 'number'
  );
}

/** Asks questions and matches the answers to them; one per side of a channel (or per primary). */
export class Asker {
  private nextId = 1;
  private readonly pending = new Map<
    number,
    { resolve(v: unknown): void; reject(e: Error): void; timer: NodeJS.Timeout; peer: unknown }
  >();

  /** `peer` names who was asked, so that `forget(peer)` can fail its questions when it dies. */
  ask(send: Send, topic: string, body: unknown, timeoutMs: number, peer?: unknown): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => this.settle(id, new IpcTimeoutError(`no answer to ${topic} in ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.pending.set(id, { resolve, reject, timer, peer });
      try {
        send({ type: `${PREFIX}${topic}`, id, body } satisfies Question);
      } catch (err) {
        this.settle(id, err as Error);
      }
    });
  }

  /** Feeds a received message in; true when it was an answer to one of our questions. */
  receive(message: unknown): boolean {
    if (topicOf(message) !== 'answer') return false;
    const answer = message as Answer;
    if (!this.pending.has(answer.id)) return false; // late, after its timeout
    this.settle(answer.id, answer.ok ? undefined : new Error(answer.error ?? 'failed'), answer.body);
    return true;
  }

  /** Fails at once every question put to `peer` (it exited: no answer will come). */
  forget(peer: unknown): void {
    for (const [id, p] of this.pending) if (p.peer === peer) this.settle(id, new Error('the peer is gone'));
  }

  get size(): number {
    return this.pending.size;
  }

  private settle(id: number, error: Error | undefined, body?: unknown): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    clearTimeout(p.timer);
    if (error) p.reject(error);
    else p.resolve(body);
  }
}

/** Answers `question` with the handler for its topic; a missing handler or a throw is an error answer. */
export async function answer(question: Question, handlers: Handlers, send: Send): Promise<void> {
  const handler = handlers[topicOf(question)!];
  let reply: Answer;
  try {
    if (!handler) throw new Error(`nothing answers ${question.type}`);
    reply = { type: ANSWER, id: question.id, ok: true, body: await handler(question.body) };
  } catch (err) {
    reply = { type: ANSWER, id: question.id, ok: false, error: (err as Error).message };
  }
  try {
    send(reply);
  } catch {
    // The channel closed (the asker is gone): nobody is waiting any more.
  }
}
