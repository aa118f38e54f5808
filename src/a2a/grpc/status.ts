/**
 * gRPC status in trailers ("gRPC over HTTP/2", grpc/grpc doc/PROTOCOL-HTTP2.md): `grpc-status`
 * (decimal code), `grpc-message` (percent-encoded UTF-8) and `grpc-status-details-bin` (base64
 * `google.rpc.Status`, whose details carry A2A's `google.rpc.ErrorInfo`, §10.6,
 * wire-reference §1.3). Message layouts: docs/proto/README.md. Decoding never throws.
 */
import { BinaryWriter, WireType, base64Decode } from '@bufbuild/protobuf/wire';
import { eachField, messageField, stringField, tryDecode } from './proto-read.js';

export type Trailers = Readonly<Record<string, string | string[] | undefined>>;

export interface GrpcStatus {
  readonly code: number;
  readonly message?: string;
  readonly reason?: string;
  readonly domain?: string;
  readonly metadata?: Readonly<Record<string, string>>;
}

/** Canonical code names (grpc/grpc doc/statuscodes.md). */
export const GRPC_CODE_NAMES: readonly string[] = [
  'OK',
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
];

/** The code of a status name (`NOT_FOUND` → 5); UNKNOWN (2) for a name gRPC does not have. */
export function grpcCodeOf(name: string): number {
  const code = GRPC_CODE_NAMES.indexOf(name);
  return code === -1 ? 2 : code;
}

export const ERROR_INFO_TYPE_URL = 'type.googleapis.com/google.rpc.ErrorInfo';
/** The domain of A2A's own errors (§10.6); the gateway's own errors use `a2a-gateway`. */
export { A2A_ERROR_DOMAIN } from '../error-table.js';
export const GATEWAY_ERROR_DOMAIN = 'a2a-gateway';

const MAX_METADATA_ENTRIES = 32;
const MAX_TEXT = 1024;

/** The status the trailers carry; `undefined` without a valid `grpc-status`. */
export function decodeGrpcStatus(trailers: Trailers | undefined): GrpcStatus | undefined {
  const codeText = first(trailers?.['grpc-status'])?.trim();
  if (codeText === undefined || !/^\d{1,9}$/.test(codeText)) return undefined;
  const code = Number(codeText);
  const rawMessage = first(trailers?.['grpc-message']);
  const message = rawMessage === undefined ? undefined : percentDecode(rawMessage).slice(0, MAX_TEXT);
  const detailsText = first(trailers?.['grpc-status-details-bin']);
  const details = detailsText === undefined ? undefined : tryDecode(() => readStatus(base64Decode(detailsText.trim())));
  return {
    code,
    message: message ?? details?.message,
    reason: details?.reason,
    domain: details?.domain,
    metadata: details?.metadata,
  };
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

interface StatusDetails {
  message?: string;
  reason?: string;
  domain?: string;
  metadata?: Record<string, string>;
}

/** google.rpc.Status: code 1, message 2, details 3 (repeated Any: type_url 1, value 2). */
function readStatus(bytes: Uint8Array): StatusDetails {
  const out: StatusDetails = {};
  eachField(bytes, (no, wt, r) => {
    if (no === 2) out.message = stringField(wt, r)?.slice(0, MAX_TEXT);
    else if (no === 3) readAny(out, messageField(wt, r));
  });
  return out;
}

function readAny(out: StatusDetails, any: Uint8Array | undefined): void {
  if (any === undefined || out.reason !== undefined) return; // the first ErrorInfo counts
  let typeUrl: string | undefined;
  let value: Uint8Array | undefined;
  eachField(any, (no, wt, r) => {
    if (no === 1) typeUrl = stringField(wt, r);
    else if (no === 2) value = messageField(wt, r);
  });
  if (typeUrl?.endsWith('/google.rpc.ErrorInfo') && value !== undefined) readErrorInfo(out, value);
}

/** google.rpc.ErrorInfo: reason 1, domain 2, metadata 3 (map entry: key 1, value 2). */
function readErrorInfo(out: StatusDetails, bytes: Uint8Array): void {
  eachField(bytes, (no, wt, r) => {
    if (no === 1) out.reason = stringField(wt, r)?.slice(0, MAX_TEXT);
    else if (no === 2) out.domain = stringField(wt, r)?.slice(0, MAX_TEXT);
    else if (no === 3) readEntry(out, messageField(wt, r));
  });
}

function readEntry(out: StatusDetails, entry: Uint8Array | undefined): void {
  if (entry === undefined) return;
  const metadata = (out.metadata ??= {});
  if (Object.keys(metadata).length >= MAX_METADATA_ENTRIES) return;
  let key = '';
  let value = '';
  eachField(entry, (no, wt, r) => {
    if (no === 1) key = stringField(wt, r) ?? '';
    else if (no === 2) value = stringField(wt, r) ?? '';
  });
  if (key !== '__proto__') metadata[key.slice(0, MAX_TEXT)] = value.slice(0, MAX_TEXT);
}

export interface StatusToEncode {
  readonly code: number;
  readonly message: string;
  readonly reason: string;
  readonly domain: string;
  readonly metadata?: Readonly<Record<string, string>>;
}

/** google.rpc.Status with one ErrorInfo detail: the value of `grpc-status-details-bin` before base64. */
export function encodeStatusDetails(status: StatusToEncode): Uint8Array {
  const info = new BinaryWriter().tag(1, WireType.LengthDelimited).string(status.reason);
  info.tag(2, WireType.LengthDelimited).string(status.domain);
  for (const [key, value] of Object.entries(status.metadata ?? {})) {
    info.tag(3, WireType.LengthDelimited).fork();
    info.tag(1, WireType.LengthDelimited).string(key).tag(2, WireType.LengthDelimited).string(value).join();
  }
  const any = new BinaryWriter().tag(1, WireType.LengthDelimited).string(ERROR_INFO_TYPE_URL);
  any.tag(2, WireType.LengthDelimited).bytes(info.finish());
  const out = new BinaryWriter();
  if (status.code !== 0) out.tag(1, WireType.Varint).int32(status.code);
  if (status.message !== '') out.tag(2, WireType.LengthDelimited).string(status.message);
  return out.tag(3, WireType.LengthDelimited).bytes(any.finish()).finish();
}

/** `grpc-message` value: UTF-8 bytes outside 0x20–0x7E, and `%`, as `%XX` ("gRPC over HTTP/2"). */
export function percentEncodeGrpcMessage(text: string): string {
  if (/^[\x20-\x24\x26-\x7e]*$/.test(text)) return text;
  let out = '';
  for (const byte of new TextEncoder().encode(text)) {
    out +=
      byte >= 0x20 && byte <= 0x7e && byte !== 0x25
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Decodes `%XX` as UTF-8 bytes; a malformed escape stays as it is (the spec says: do not fail). */
export function percentDecode(text: string): string {
  if (!text.includes('%')) return text;
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const hex = text.charCodeAt(i) === 0x25 ? text.slice(i + 1, i + 3) : '';
    if (/^[0-9a-fA-F]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      const cp = text.codePointAt(i)!;
      for (const b of new TextEncoder().encode(String.fromCodePoint(cp))) bytes.push(b);
      if (cp > 0xffff) i++;
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}
