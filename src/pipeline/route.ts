/**
 * Where a request goes (pure). Host routing first (src/gateway/server.ts): a `Host` named in some agent's
 * `hosts` → that agent, the target as is (`agentForHost`; the gRPC listener routes `:authority`
 * with the same function). Else path routing: `/agents/{name}/<rest>` → agent `name`, `<rest>`
 * (with the query) appended to its URL.
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

/**
 * Host routing: hostname → agent, from `agents.{name}.hosts` (src/config/grpc-schema.ts: lower
 * case, no trailing dot, unique across agents). Made once per config generation.
 */
export type HostRoutes = ReadonlyMap<string, string>;

export function hostRoutes(agents: Readonly<Record<string, { readonly hosts: readonly string[] }>>): HostRoutes {
  const routes = new Map<string, string>();
  for (const [name, agent] of Object.entries(agents)) for (const host of agent.hosts) routes.set(host, name);
  return routes;
}

/**
 * The hostname of a `Host` header or an HTTP/2 `:authority` (RFC 9110 §7.2, RFC 3986 §3.2.2):
 * lower-cased (host names are case-insensitive), the port stripped, an IPv6 literal's brackets
 * removed (`[::1]:8080` → `::1`, the form the config holds) and a trailing dot dropped
 * (`example.com.` is the same absolute name).
 */
export function hostnameOf(authority: string): string {
  let end = authority.length;
  let start = 0;
  if (authority.startsWith('[')) {
    start = 1;
    end = authority.indexOf(']');
    if (end === -1) return '';
  } else {
    const colon = authority.lastIndexOf(':');
    if (colon !== -1) end = colon;
  }
  if (end > start && authority.charCodeAt(end - 1) === 46 /* . */) end--;
  return authority.slice(start, end).toLowerCase();
}

/**
 * The agent a `Host` / `:authority` routes to, if any. No cost when no agent has `hosts`, and no
 * allocation for a Host already in normal form (lower case, no port: the default port's
 * spelling), hit or miss: path-routed requests pay only a lookup (src/gateway/server.ts, hot path).
 */
export function agentForHost(routes: HostRoutes, authority: string | undefined): string | undefined {
  if (routes.size === 0 || !authority) return undefined;
  const direct = routes.get(authority);
  if (direct !== undefined || isNormalForm(authority)) return direct;
  return routes.get(hostnameOf(authority));
}

/** Nothing for `hostnameOf` to change: no upper case, no port or brackets, no trailing dot. */
function isNormalForm(authority: string): boolean {
  if (authority.charCodeAt(authority.length - 1) === 46 /* . */) return false;
  for (let i = 0; i < authority.length; i++) {
    const c = authority.charCodeAt(i);
    if ((c >= 65 && c <= 90) || c === 58 /* : */ || c === 91 /* [ */) return false;
  }
  return true;
}
