/**
 * The few protobuf reading steps the gRPC decoders share, on `@bufbuild/protobuf/wire`'s
 * BinaryReader: visit the fields of one message, read only those wanted, skip the rest by wire
 * type (protobuf encoding guide: unknown fields are skipped). A field of an unexpected wire
 * type is skipped too, not trusted. The reader throws on malformed bytes; `tryDecode` is the one
 * place that turns a throw into `undefined` (principle 5: the decoders never throw).
 */
import { BinaryReader, BinaryWriter, WireType } from '@bufbuild/protobuf/wire';

export { WireType };

/** Called per field; must consume the field (read it, or `r.skip(wireType)`). */
export type FieldVisitor = (fieldNo: number, wireType: WireType, r: BinaryReader) => void;

/** Visits every field of `bytes`; throws on malformed bytes (use under `tryDecode`). */
export function eachField(bytes: Uint8Array, visit: FieldVisitor): void {
  const r = new BinaryReader(bytes);
  while (r.pos < r.len) {
    const [fieldNo, wireType] = r.tag();
    const before = r.pos;
    visit(fieldNo, wireType, r);
    if (r.pos === before) r.skip(wireType, fieldNo);
  }
  if (r.pos > r.len) throw new RangeError('message ends inside a field');
}

/** `decode()`, or `undefined` when the bytes are not valid protobuf. */
export function tryDecode<T>(decode: () => T): T | undefined {
  try {
    return decode();
  } catch {
    return undefined;
  }
}

/** A length-delimited string field, or skip the field. */
export function stringField(wireType: WireType, r: BinaryReader): string | undefined {
  if (wireType !== WireType.LengthDelimited) {
    r.skip(wireType);
    return undefined;
  }
  return r.string();
}

/** An embedded message (its bytes, a view into the message), or skip the field. */
export function messageField(wireType: WireType, r: BinaryReader): Uint8Array | undefined {
  if (wireType !== WireType.LengthDelimited) {
    r.skip(wireType);
    return undefined;
  }
  return r.bytes();
}

/** A varint field (int32, enum, bool), or skip the field. */
export function varintField(wireType: WireType, r: BinaryReader): number | undefined {
  if (wireType !== WireType.Varint) {
    r.skip(wireType);
    return undefined;
  }
  return r.int32();
}

/** The id of a 0.3 resource name `tasks/{id}` or `tasks/{id}/pushNotificationConfigs/{cfg}` (wire-reference §6.4). */
export function taskOfName(name: string | undefined): string | undefined {
  if (name === undefined || !name.startsWith('tasks/')) return undefined;
  const end = name.indexOf('/', 6);
  const id = end < 0 ? name.slice(6) : name.slice(6, end);
  return id === '' ? undefined : id;
}

/** The config id of `tasks/{id}/pushNotificationConfigs/{cfg}`. */
export function configOfName(name: string | undefined): string | undefined {
  const m = name === undefined ? null : /^tasks\/[^/]+\/pushNotificationConfigs\/([^/]+)$/.exec(name);
  return m?.[1];
}

/** One field as it lies in a message: its number, wire type, bytes (tag included) and, when length-delimited, its contents. */
export interface RawField {
  readonly no: number;
  readonly wireType: WireType;
  readonly raw: Uint8Array;
  readonly value: Uint8Array | undefined;
}

/** The fields of `bytes` in wire order, as views into it, for rewrites that copy most of them raw; throws on malformed bytes. */
export function rawFields(bytes: Uint8Array): RawField[] {
  const r = new BinaryReader(bytes);
  const out: RawField[] = [];
  while (r.pos < r.len) {
    const start = r.pos;
    const [no, wireType] = r.tag();
    let value: Uint8Array | undefined;
    if (wireType === WireType.LengthDelimited) value = r.bytes();
    else r.skip(wireType, no);
    if (r.pos > r.len) throw new RangeError('message ends inside a field');
    out.push({ no, wireType, raw: bytes.subarray(start, r.pos), value });
  }
  return out;
}

/** A length-delimited field `no` holding `value`, encoded. */
export function lengthDelimitedField(no: number, value: Uint8Array): Uint8Array {
  return new BinaryWriter().tag(no, WireType.LengthDelimited).bytes(value).finish();
}

/** The parts, one after the other. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
