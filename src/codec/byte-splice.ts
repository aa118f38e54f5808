/**
 * Byte-preserving edits of a document: ranges replaced, every other byte kept as it came (the
 * extended-card rewrite, src/cards/rewrite-bytes.ts; the page-token swap,
 * src/access/page-token-request.ts). Pure.
 */

/** `bytes` replace `[start, end)` of the original. */
export interface ByteEdit {
  readonly start: number;
  readonly end: number;
  readonly bytes: Uint8Array;
}

/** The body with every edit applied (edits must not overlap; any order). */
export function spliceBytes(body: Uint8Array, edits: ByteEdit[]): Uint8Array {
  edits.sort((a, b) => a.start - b.start);
  let size = body.length;
  for (const e of edits) size += e.bytes.length - (e.end - e.start);
  const out = new Uint8Array(size);
  let from = 0;
  let at = 0;
  for (const e of edits) {
    out.set(body.subarray(from, e.start), at);
    at += e.start - from;
    out.set(e.bytes, at);
    at += e.bytes.length;
    from = e.end;
  }
  out.set(body.subarray(from), at);
  return out;
}
