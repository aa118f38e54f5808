/**
 * Where a request goes. Path routing: `/agents/{name}/<rest>` → agent `name`, `<rest>` (with the
 * query) appended to its URL. Host routing (one hostname per agent) can be added as another
 * resolver with the same result type.
 */
export type Route =
  | { readonly kind: 'agent'; readonly agent: string; readonly rest: string }
  /** `/agents/{name}` without the trailing slash: clients resolve the card one level up. */
  | { readonly kind: 'agent-no-slash'; readonly agent: string }
  | { readonly kind: 'control' };

const PREFIX = '/agents/';

export function resolvePathRoute(url: string): Route {
  if (!url.startsWith(PREFIX)) return { kind: 'control' };
  const end = url.indexOf('/', PREFIX.length);
  if (end === -1) {
    const query = url.indexOf('?', PREFIX.length);
    const name = url.slice(PREFIX.length, query === -1 ? undefined : query);
    return name ? { kind: 'agent-no-slash', agent: decodeSegment(name) } : { kind: 'control' };
  }
  const name = url.slice(PREFIX.length, end);
  if (name.includes('?')) return { kind: 'control' };
  return { kind: 'agent', agent: decodeSegment(name), rest: url.slice(end) };
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
