/**
 * The request target below `/agents/{name}`, normalised before it is forwarded (principle 19),
 * and the form records and logs show it in (query values redacted: an `api_key=` must not land in
 * `/exchanges` or the access log).
 * The gateway adds its own credentials to what it forwards, so a path that an agent's HTTP
 * server would resolve to somewhere outside the agent's base path must never leave: nginx, for
 * one, resolves `..` and decodes `%2e` before it routes.
 *
 * Dot-segments are removed as RFC 3986 §5.2.4 says, after decoding `%2e` (an encoded `.` is the
 * same character, RFC 3986 §2.3/§6.2.2.2). Refused: a target that would climb above the agent's
 * base path, a backslash (raw or `%5c`: some servers treat it as `/`), an encoded NUL, an
 * encoded `/` next to a dot-segment (`..%2f`: a server that decodes `%2f` would see `../`), and
 * control characters. Everything else keeps its bytes: other percent-encodings are the agent's.
 * Pure: no I/O.
 */

export type Target =
  | { readonly ok: true; /** Normalised path, then the query as sent (with its `?`). */ readonly target: string }
  | { readonly ok: false; readonly why: string };

const DOT = /%2e/gi;
const ENCODED_SLASH = /%2f/i;
/** A backslash, raw or encoded; an encoded NUL; a control character or space (RFC 3986 §2: never raw). */
// eslint-disable-next-line no-control-regex -- control characters are exactly what it looks for
const FORBIDDEN = /\\|%5c|%00|[\u0000-\u0020\u007f]/i;

export function normaliseTarget(rest: string): Target {
  const q = rest.indexOf('?');
  const path = q === -1 ? rest : rest.slice(0, q);
  const query = q === -1 ? '' : rest.slice(q);
  // The common case: nothing to resolve (no dot next to a slash, nothing encoded to look at).
  if (!path.includes('.') && !path.includes('%') && !FORBIDDEN.test(path)) return { ok: true, target: rest };
  if (FORBIDDEN.test(path))
    return { ok: false, why: 'the path holds a backslash, an encoded NUL or a control character' };
  const out: string[] = [];
  const segments = path.split('/');
  for (let i = 1; i < segments.length; i++) {
    const segment = segments[i]!;
    const last = i === segments.length - 1;
    const decoded = segment.includes('%') ? segment.replace(DOT, '.') : segment;
    if (decoded === '.' || decoded === '..') {
      if (decoded === '..') {
        if (out.length === 0) return { ok: false, why: 'the path climbs above the agent' };
        out.pop();
      }
      if (last) out.push(''); // `a/..` ends in a directory: `a/` (RFC 3986 §5.2.4, step 2.B/C)
      continue;
    }
    if (ENCODED_SLASH.test(segment) && hasDotSegment(decoded.replace(/%2f/gi, '/'))) {
      return { ok: false, why: 'the path hides a dot-segment behind an encoded slash' };
    }
    out.push(segment);
  }
  return { ok: true, target: `/${out.join('/')}${query}` };
}

function hasDotSegment(path: string): boolean {
  return path.split('/').some((s) => s === '.' || s === '..');
}

/** `?api_key=s3cret&x=1` → `?api_key=…&x=…`: names stay (they say what was asked), values go. */
export function redactQuery(path: string): string {
  const q = path.indexOf('?');
  if (q === -1) return path;
  const pairs = path.slice(q + 1).split('&');
  return `${path.slice(0, q)}?${pairs.map((p) => (p.includes('=') ? `${p.slice(0, p.indexOf('='))}=…` : p)).join('&')}`;
}
