/** Splits `bytes` at the given offsets (any order; out-of-range offsets wrap), for feeding
 * decoders a body in arbitrary chunkings. */
export function splitAt(bytes: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let from = 0;
  for (const cut of cuts
    .map((c) => c % (bytes.length + 1))
    .sort((a, b) => a - b)
    .concat(bytes.length)) {
    out.push(bytes.subarray(from, cut));
    from = cut;
  }
  return out;
}
