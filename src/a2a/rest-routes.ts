/**
 * HTTP+JSON (REST) route table, matched on the TAIL of the path because the interface base path
 * (`supportedInterfaces[].url`, e.g. `/a2a/rest`) is the agent's choice (wire-reference §1 table, §1.2).
 * Also matches the 0.3 `/v1/...` forms and `/v1/card` (wire-reference §6.2), an optional
 * `/{tenant}` segment before the route (wire-reference §1, §5.7), and the well-known card paths
 * (§8.2; `/.well-known/agent.json` was the ≤0.2 path, wire-reference §6.5).
 *
 * Matched as leniently as the agents' routers match (Express, the SDKs' server: case-insensitive,
 * a trailing slash ignored), so that access control (src/access/) sees the operation the agent
 * will serve: `/TASKS/{id}/` is GetTask to the agent, so it is GetTask here.
 */
import type { Operation } from './operations.js';

export interface RestRouteMatch {
  readonly operation: Operation;
  /** Path before the route: the interface base path plus a tenant segment, if any. */
  readonly prefix: string;
  /** The 0.3 form with a `/v1` segment before the route. */
  readonly legacyV1: boolean;
  /** `{id}` / `{taskId}` of the route, percent-decoded. */
  readonly taskId?: string;
  /** `{id}` of a push-notification config route. */
  readonly configId?: string;
}

interface Route {
  readonly pattern: RegExp;
  /** A literal part of every path `pattern` matches: tested first, it spares most regex runs. */
  readonly hint: string;
  /** HTTP method → operation. */
  readonly methods: Readonly<Record<string, Operation>>;
  readonly captures: ReadonlyArray<'taskId' | 'configId'>;
  readonly onlyV1?: boolean;
}

const SEGMENT = '([^/]+)';

// Order matters: more specific tails first (`/tasks/{id}:cancel` before `/tasks/{id}`).
const ROUTES: readonly Route[] = [
  { pattern: /\/message:send$/i, hint: '/message:send', methods: { POST: 'SendMessage' }, captures: [] },
  { pattern: /\/message:stream$/i, hint: '/message:stream', methods: { POST: 'SendStreamingMessage' }, captures: [] },
  {
    pattern: new RegExp(`/tasks/${SEGMENT}:cancel$`, 'i'),
    hint: ':cancel',
    methods: { POST: 'CancelTask' },
    captures: ['taskId'],
  },
  // Proto says GET, spec §11.3.2 says POST; SDKs accept both (wire-reference §7.1 #2, §6.6).
  {
    pattern: new RegExp(`/tasks/${SEGMENT}:subscribe$`, 'i'),
    hint: ':subscribe',
    methods: { GET: 'SubscribeToTask', POST: 'SubscribeToTask' },
    captures: ['taskId'],
  },
  {
    pattern: new RegExp(`/tasks/${SEGMENT}/pushNotificationConfigs/${SEGMENT}$`, 'i'),
    hint: '/pushNotificationConfigs/',
    methods: { GET: 'GetTaskPushNotificationConfig', DELETE: 'DeleteTaskPushNotificationConfig' },
    captures: ['taskId', 'configId'],
  },
  {
    pattern: new RegExp(`/tasks/${SEGMENT}/pushNotificationConfigs$`, 'i'),
    hint: '/pushNotificationConfigs',
    methods: { POST: 'CreateTaskPushNotificationConfig', GET: 'ListTaskPushNotificationConfigs' },
    captures: ['taskId'],
  },
  {
    pattern: new RegExp(`/tasks/${SEGMENT}$`, 'i'),
    hint: '/tasks/',
    methods: { GET: 'GetTask' },
    captures: ['taskId'],
  },
  { pattern: /\/tasks$/i, hint: '/tasks', methods: { GET: 'ListTasks' }, captures: [] },
  {
    pattern: /\/extendedAgentCard$/i,
    hint: '/extendedAgentCard',
    methods: { GET: 'GetExtendedAgentCard' },
    captures: [],
  },
  { pattern: /\/v1\/card$/i, hint: '/v1/card', methods: { GET: 'GetExtendedAgentCard' }, captures: [], onlyV1: true },
  {
    pattern: /\/\.well-known\/agent(?:-card)?\.json$/i,
    hint: '/.well-known/agent',
    methods: { GET: 'AgentCard', HEAD: 'AgentCard' },
    captures: [],
  },
];

const HINTS = ROUTES.map((route) => route.hint.toLowerCase());

export function matchRestRoute(method: string, rawPath: string): RestRouteMatch | undefined {
  const path = trimSlashes(stripQuery(rawPath));
  const lower = hasUpperCase(path) ? path.toLowerCase() : path;
  const verb = method.toUpperCase();
  for (let r = 0; r < ROUTES.length; r++) {
    const route = ROUTES[r]!;
    if (!lower.includes(HINTS[r]!)) continue;
    const m = route.pattern.exec(path);
    if (m === null) continue;
    const operation = route.methods[verb];
    if (operation === undefined) return undefined;
    let prefix = path.slice(0, m.index);
    const legacyV1 = route.onlyV1 === true || prefix.toLowerCase().endsWith('/v1');
    if (legacyV1 && route.onlyV1 !== true) prefix = prefix.slice(0, -'/v1'.length);
    const ids: { taskId?: string; configId?: string } = {};
    route.captures.forEach((name, i) => (ids[name] = decodeSegment(m[i + 1] as string)));
    return { operation, prefix, legacyV1, ...ids };
  }
  return undefined;
}

/**
 * The tenant segment of a route prefix, given the interface base paths the caller knows from
 * the agent card. Without them a tenant cannot be told from the last base-path segment
 * (`/a2a/rest/acme/message:send`), so none is reported.
 */
export function tenantFromPrefix(prefix: string, basePaths: readonly string[]): string | undefined {
  for (const raw of basePaths) {
    const base = raw.replace(/\/+$/, '');
    if (!prefix.startsWith(`${base}/`)) continue;
    const rest = prefix.slice(base.length + 1);
    if (rest !== '' && !rest.includes('/')) return decodeSegment(rest);
  }
  return undefined;
}

/** A trailing slash is ignored, as the agents' routers ignore it. */
function trimSlashes(path: string): string {
  let end = path.length;
  while (end > 0 && path.charCodeAt(end - 1) === 47 /* / */) end--;
  return end === path.length ? path : path.slice(0, end);
}

function hasUpperCase(path: string): boolean {
  for (let i = 0; i < path.length; i++) {
    const c = path.charCodeAt(i);
    if (c >= 65 && c <= 90) return true;
  }
  return false;
}

function stripQuery(path: string): string {
  const q = path.indexOf('?');
  return q < 0 ? path : path.slice(0, q);
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
