/**
 * Reads an OTLP ExportTraceServiceRequest in protobuf (opentelemetry-proto trace/v1/trace.proto,
 * common/v1/common.proto) into the receiver's span shape. Test support only: a walk over the
 * protobuf wire format (varint, fixed64, length-delimited, fixed32) for the fields the tests read.
 */
import type { ReceivedSpan } from './otlp-receiver.js';

type Field = { no: number; varint?: bigint; bytes?: Buffer; fixed64?: Buffer };

function varint(buf: Buffer, at: { i: number }): bigint {
  let result = 0n;
  for (let shift = 0n; ; shift += 7n) {
    const b = buf[at.i++]!;
    result |= BigInt(b & 0x7f) << shift;
    if (b < 0x80) return result;
  }
}

function fields(buf: Buffer): Field[] {
  const out: Field[] = [];
  const at = { i: 0 };
  while (at.i < buf.length) {
    const key = Number(varint(buf, at));
    const no = key >>> 3;
    const wire = key & 7;
    if (wire === 0) out.push({ no, varint: varint(buf, at) });
    else if (wire === 1) out.push({ no, fixed64: buf.subarray(at.i, (at.i += 8)) });
    else if (wire === 2) {
      const len = Number(varint(buf, at));
      out.push({ no, bytes: buf.subarray(at.i, (at.i += len)) });
    } else if (wire === 5) at.i += 4;
    else throw new Error(`unexpected wire type ${wire}`);
  }
  return out;
}

const all = (fs: Field[], no: number) => fs.filter((f) => f.no === no);
const str = (fs: Field[], no: number) => all(fs, no)[0]?.bytes?.toString('utf8');
const hex = (fs: Field[], no: number) => all(fs, no)[0]?.bytes?.toString('hex') ?? '';
const num = (fs: Field[], no: number) => Number(all(fs, no)[0]?.varint ?? 0n);
const nanos = (fs: Field[], no: number) => all(fs, no)[0]?.fixed64?.readBigUInt64LE(0) ?? 0n;

function anyValue(buf: Buffer): unknown {
  const f = fields(buf)[0];
  if (!f) return undefined;
  switch (f.no) {
    case 1:
      return f.bytes!.toString('utf8');
    case 2:
      return f.varint === 1n;
    case 3:
      return Number(BigInt.asIntN(64, f.varint!));
    case 4:
      return f.fixed64!.readDoubleLE(0);
    case 5:
      return all(fields(f.bytes!), 1).map((v) => anyValue(v.bytes!));
    default:
      return undefined;
  }
}

const attributes = (list: Field[]) =>
  Object.fromEntries(
    list.map((kv) => {
      const f = fields(kv.bytes!);
      return [str(f, 1), anyValue(all(f, 2)[0]?.bytes ?? Buffer.alloc(0))];
    }),
  );

export function spansFromProtobuf(body: Buffer): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const rs of all(fields(body), 1)) {
    const rsf = fields(rs.bytes!);
    const resource = attributes(all(fields(all(rsf, 1)[0]?.bytes ?? Buffer.alloc(0)), 1));
    for (const ss of all(rsf, 2)) {
      const ssf = fields(ss.bytes!);
      const scope = str(fields(all(ssf, 1)[0]?.bytes ?? Buffer.alloc(0)), 1) ?? '';
      for (const sp of all(ssf, 2)) {
        const s = fields(sp.bytes!);
        const status = fields(all(s, 15)[0]?.bytes ?? Buffer.alloc(0));
        spans.push({
          traceId: hex(s, 1),
          spanId: hex(s, 2),
          parentSpanId: hex(s, 4),
          name: str(s, 5) ?? '',
          kind: num(s, 6),
          startNs: nanos(s, 7),
          endNs: nanos(s, 8),
          attributes: attributes(all(s, 9)),
          events: all(s, 11).map((e) => {
            const ef = fields(e.bytes!);
            return { name: str(ef, 2) ?? '', timeNs: nanos(ef, 1), attributes: attributes(all(ef, 3)) };
          }),
          status: { code: num(status, 3), message: str(status, 2) },
          resource,
          scope,
        });
      }
    }
  }
  return spans;
}
