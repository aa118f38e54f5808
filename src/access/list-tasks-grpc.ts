/**
 * Task ownership on ListTasks over gRPC (1.0 only: 0.3 has no ListTasks rpc), the protobuf twin
 * of list-tasks.ts: the ListTasksResponse (docs/proto/a2a-v1.0.0.proto: tasks 1, next_page_token
 * 2, page_size 3, total_size 4) keeps the tasks (Task: id 1) the caller owns, every other field as
 * the agent encoded it, in order; `total_size`, when the agent sent one, becomes the number kept,
 * and `next_page_token` is sealed for the caller (page-tokens.ts).
 * An answer that cannot be read (not protobuf, compressed, not one message) is refused, never
 * passed on.
 */
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { concatBytes, eachField, rawFields, stringField, tryDecode, type RawField } from '../a2a/grpc/proto-read.js';
import type { MessageResult, MessageRewrite } from '../exchange/answer-rewrite.js';
import { ownedBy, unfilterable, type OwnersOf } from './list-tasks.js';
import type { SealPageToken } from './page-tokens.js';

const TASKS = 1;
const NEXT_PAGE_TOKEN = 2;
const TOTAL_SIZE = 4;
/** Task.id */
const TASK_ID = 1;

/** The id of a listed Task, or undefined (not a message, no id, not protobuf). */
function taskIdOf(field: RawField): string | undefined {
  if (field.value === undefined) return undefined;
  const task = field.value;
  let id: string | undefined;
  const read = tryDecode(() => {
    eachField(task, (no, wt, r) => {
      if (no === TASK_ID) id = stringField(wt, r);
    });
    return true;
  });
  return read ? id || undefined : undefined;
}

async function filtered(
  message: Uint8Array,
  caller: string,
  ownersOf: OwnersOf,
  seal: SealPageToken,
): Promise<Uint8Array | string> {
  const fields = tryDecode(() => rawFields(message));
  if (fields === undefined) return 'not a ListTasksResponse (not valid protobuf)';
  const ids = fields.filter((f) => f.no === TASKS).map(taskIdOf);
  const owned = await ownedBy(caller, ids, ownersOf);
  let task = 0;
  let kept = 0;
  const keep = fields.map((f) => {
    if (f.no !== TASKS) return true;
    const mine = owned(ids[task++]);
    if (mine) kept++;
    return mine;
  });
  const parts = fields
    .filter((_, i) => keep[i])
    .map((f) => {
      if (f.no === TOTAL_SIZE) return totalSize(f, kept);
      return f.no === NEXT_PAGE_TOKEN ? sealedToken(f, seal) : f.raw;
    });
  if (parts.some((part) => part === undefined)) return 'its next_page_token is not a string';
  return concatBytes(parts as Uint8Array[]);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** `next_page_token` sealed for the caller (an empty one, no next page, kept); undefined when unreadable. */
function sealedToken(field: RawField, seal: SealPageToken): Uint8Array | undefined {
  if (field.wireType !== WireType.LengthDelimited || field.value === undefined) return undefined;
  const token = tryDecode(() => utf8.decode(field.value));
  if (token === undefined) return undefined;
  if (token === '') return field.raw;
  return new BinaryWriter().tag(NEXT_PAGE_TOKEN, WireType.LengthDelimited).string(seal(token)).finish();
}

/** `total_size` as the number of tasks kept: the agent's count would tell how many tasks others have. */
function totalSize(field: RawField, kept: number): Uint8Array {
  if (field.wireType !== WireType.Varint) return new Uint8Array(0);
  return new BinaryWriter().tag(TOTAL_SIZE, WireType.Varint).int32(kept).finish();
}

/** The rewrite for a grpc-status 0 ListTasks answer to `caller`. */
export function grpcListTasksFilter(
  agent: string,
  caller: string,
  ownersOf: OwnersOf,
  seal: SealPageToken,
): MessageRewrite {
  return {
    async apply(message): Promise<MessageResult> {
      const out = await filtered(message, caller, ownersOf, seal);
      return typeof out === 'string' ? { refusal: unfilterable(agent, out) } : { message: out };
    },
    unreadable: (why) => ({ refusal: unfilterable(agent, why) }),
  };
}
