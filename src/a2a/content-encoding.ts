/**
 * Decoders read bodies as they travel. A compressed body (`Content-Encoding: gzip`, `br`…) is
 * not read: guessing from compressed bytes would only produce false `invalid-json` findings, so
 * its facts are `partial` instead (principle 6: say partial rather than guess).
 */
export function encodingOf(header: string | undefined): string | undefined {
  const value = header?.trim().toLowerCase();
  return value === undefined || value === '' || value === 'identity' ? undefined : value.slice(0, 32);
}
