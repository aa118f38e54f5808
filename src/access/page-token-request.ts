/**
 * The ListTasks request as the agent gets it under task ownership: every page token it carries,
 * wherever the agent may read one, replaced by the agent's own token that the caller's sealed
 * one opened to (page-tokens.ts); every other byte kept as the caller sent it. Pure.
 *
 * The places are the ones the classifier reads (src/a2a/request-body.ts PAGE_TOKEN_NAMES): JSON-RPC
 * `params.pageToken` / `params.page_token`, REST query parameters named so (with a suffix too:
 * `pageToken[]` is an array to an Express agent), gRPC ListTasksRequest.page_token (field 5).
 */
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { PAGE_TOKEN_NAMES, isPageTokenParam } from '../a2a/request-body.js';
import { concatBytes, rawFields, tryDecode } from '../a2a/grpc/proto-read.js';
import { spliceBytes, type ByteEdit } from '../codec/byte-splice.js';
import { compileScanPlan } from '../codec/json-scan-plan.js';
import { locateJson } from '../codec/json-spans.js';

const JSONRPC_PLAN = compileScanPlan(['', 'params', ...PAGE_TOKEN_NAMES.map((name) => `params.${name}`)]);
const encoder = new TextEncoder();

/** A JSON-RPC body with each page token string replaced; undefined when it is not JSON. */
export function jsonRpcWithPageToken(body: Uint8Array, token: string): Uint8Array | undefined {
  const found = locateJson(body, JSONRPC_PLAN);
  if (!found.ok) return undefined;
  const value = encoder.encode(JSON.stringify(token));
  const edits: ByteEdit[] = found.hits
    .filter((hit) => hit.path !== '' && hit.path !== 'params' && hit.type === 'string')
    .map((hit) => ({ start: hit.start, end: hit.end, bytes: value }));
  return spliceBytes(body, edits);
}

/** A REST target with each page token parameter's value replaced (the query is everything after
 * the first `?`, as an agent's query parser takes it). */
export function restTargetWithPageToken(target: string, token: string): string {
  const q = target.indexOf('?');
  if (q < 0) return target;
  const pairs = target
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      return isPageTokenParam(decodedName(name)) ? `${name}=${encodeURIComponent(token)}` : pair;
    });
  return `${target.slice(0, q + 1)}${pairs.join('&')}`;
}

function decodedName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

/** ListTasksRequest.page_token */
const PAGE_TOKEN = 5;
/** gRPC message prefix: compressed flag, 4-byte length (gRPC over HTTP/2, "Length-Prefixed-Message"). */
const PREFIX_BYTES = 5;

/** A gRPC-framed ListTasksRequest with each page_token replaced; undefined when it cannot be read
 * (compressed, not one whole message, not protobuf). */
export function grpcWithPageToken(frame: Uint8Array, token: string): Uint8Array | undefined {
  if (frame.length < PREFIX_BYTES || frame[0] !== 0) return undefined;
  const length = new DataView(frame.buffer, frame.byteOffset, frame.byteLength).getUint32(1);
  if (length !== frame.length - PREFIX_BYTES) return undefined;
  const fields = tryDecode(() => rawFields(frame.subarray(PREFIX_BYTES)));
  if (fields === undefined) return undefined;
  const swapped = new BinaryWriter().tag(PAGE_TOKEN, WireType.LengthDelimited).string(token).finish();
  const message = concatBytes(fields.map((f) => (f.no === PAGE_TOKEN ? swapped : f.raw)));
  const out = new Uint8Array(PREFIX_BYTES + message.length);
  new DataView(out.buffer).setUint32(1, message.length);
  out.set(message, PREFIX_BYTES);
  return out;
}
