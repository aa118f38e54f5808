/**
 * Task ownership on a gRPC ListTasks answer (src/access/list-tasks-grpc.ts), on answers the SDK's
 * own serializer encodes (1.0 `ListTasks`) and read back with its deserializer: only the caller's
 * tasks stay, byte for byte, every other field as it came, `total_size` the number kept; an answer
 * that cannot be read is refused.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { A2AService } from '@a2a-js/sdk/server/grpc';
import { ownedTasksFilter } from '../../src/access/answer-filter.js';
import type { OwnersOf } from '../../src/access/list-tasks.js';
import type { MessageResult } from '../../src/exchange/answer-rewrite.js';
import { GatewayError } from '../../src/errors/gateway-error.js';

type Response = Parameters<typeof A2AService.listTasks.responseSerialize>[0];

const encode = (value: Response) => new Uint8Array(A2AService.listTasks.responseSerialize(value));
const decode = (bytes: Uint8Array) => A2AService.listTasks.responseDeserialize(Buffer.from(bytes));

function task(id: string, text = `work of ${id}`) {
  return {
    id,
    contextId: `ctx-${id}`,
    status: { state: 3, message: undefined, timestamp: '2026-01-01T00:00:00Z' },
    artifacts: [],
    history: [
      {
        messageId: `m-${id}`,
        contextId: `ctx-${id}`,
        taskId: id,
        role: 1,
        parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      },
    ],
    metadata: undefined,
  };
}

function answer(ids: readonly string[], totalSize = ids.length + 10): Response {
  return {
    tasks: ids.map((id) => task(id)),
    nextPageToken: 'next-page',
    pageSize: 50,
    totalSize,
  } as unknown as Response;
}

/** Owners as the task store would answer them: `owner(id)`, or none. */
const storeOf =
  (owner: (id: string) => string | undefined): OwnersOf =>
  async (ids) =>
    new Map(ids.map((id) => [id, owner(id)]));

const ownerOf = (id: string) => (id.startsWith('a-') ? 'alice' : id.startsWith('b-') ? 'bob' : undefined);

/** Sealing is tested on its own below; elsewhere the token passes as it is. */
const asIs = (token: string) => token;

async function apply(
  bytes: Uint8Array,
  caller = 'alice',
  owners = storeOf(ownerOf),
  seal = asIs,
): Promise<MessageResult> {
  return ownedTasksFilter('reviewer', caller, owners, seal)('grpc').apply(bytes);
}

function messageOf(result: MessageResult): Uint8Array {
  if (!('message' in result)) throw new Error(`expected a message, got ${JSON.stringify(result)}`);
  return result.message;
}

describe('ListTasks over gRPC under task ownership', () => {
  it("keeps only the caller's tasks; the other fields as they came, total_size the number kept", async () => {
    const out = decode(messageOf(await apply(encode(answer(['a-1', 'b-1', 'a-2', 'x-1'])))));
    expect(out.tasks.map((t) => t.id)).toEqual(['a-1', 'a-2']);
    expect(out.tasks[0]).toEqual(decode(encode(answer(['a-1']))).tasks[0]);
    expect([out.nextPageToken, out.pageSize, out.totalSize]).toEqual(['next-page', 50, 2]);
  });

  it("seals next_page_token for the caller (the agent's may name another caller's task); an empty one stays", async () => {
    const seal = (token: string) => `sealed(${token})`;
    const out = decode(messageOf(await apply(encode(answer(['a-1', 'b-1'])), 'alice', storeOf(ownerOf), seal)));
    expect(out.nextPageToken).toBe('sealed(next-page)');
    const last = { ...answer(['a-1']), nextPageToken: '' } as Response;
    const end = decode(messageOf(await apply(encode(last), 'alice', storeOf(ownerOf), seal)));
    expect(end.nextPageToken).toBe('');
  });

  it('lists none for a caller who owns none', async () => {
    const out = decode(messageOf(await apply(encode(answer(['a-1', 'a-2'])), 'bob')));
    expect(out.tasks).toEqual([]);
    expect(out.totalSize).toBe(0);
  });

  it('copies the kept tasks and unknown fields byte for byte, in order', async () => {
    const kept = encode(answer(['a-1'], 0)); // total_size 0 is not on the wire (proto3)
    const unknown = Uint8Array.of(0xf8, 0x06, 0x2a); // field 111, varint 42
    const bytes = new Uint8Array([...unknown, ...encode(answer(['b-1'], 0)), ...kept]);
    const out = messageOf(await apply(bytes));
    // The first message's own fields (its task gone), then the second's, as they were.
    expect(out).toEqual(new Uint8Array([...unknown, ...encode(answer([], 0)), ...kept]));
  });

  it('refuses an answer that is not protobuf, or not one plain message', async () => {
    const result = await apply(Uint8Array.of(0x0a, 0x10, 0x41));
    expect('refusal' in result && result.refusal).toBeInstanceOf(GatewayError);
    const unreadable = ownedTasksFilter(
      'reviewer',
      'alice',
      storeOf(ownerOf),
      asIs,
    )('grpc').unreadable('the answer is compressed');
    expect('refusal' in unreadable && unreadable.refusal.message).toContain('compressed');
  });

  it('passes on the store failing (the gate turns it into its refusal)', async () => {
    const failing: OwnersOf = async () => {
      throw new GatewayError('STATE_UNAVAILABLE', 'down');
    };
    await expect(apply(encode(answer(['a-1'])), 'alice', failing)).rejects.toThrow('down');
  });

  it('never keeps a task the caller does not own, and keeps every one it does', async () => {
    const ids = fc.array(fc.constantFrom('a-1', 'a-2', 'b-1', 'b-2', 'x-1', ''), { maxLength: 8 });
    await fc.assert(
      fc.asyncProperty(ids, fc.constantFrom('alice', 'bob'), async (list, caller) => {
        const out = decode(messageOf(await apply(encode(answer(list)), caller)));
        const mine = list.filter((id) => id !== '' && ownerOf(id) === caller);
        expect(out.tasks.map((t) => t.id)).toEqual(mine);
        expect(out.totalSize).toBe(mine.length);
      }),
      { numRuns: 100 },
    );
  });
});
