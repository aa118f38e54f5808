/**
 * Rules across sections that the schema cannot see one key at a time: a port is one listener's,
 * and a name in an agent's access rules is a client or a group the config defines.
 *
 * They read the config as written (after `${ENV}` substitution, before the schema), so they are
 * reported in the same pass as every schema problem, even when the schema finds others (zod runs
 * an object's refinements only once its members are valid). A value of the wrong type is left to
 * the schema's own report.
 */
import { ADMIN_PORT, LISTEN_PORT } from './fields.js';
import type { Problem } from './problem.js';

type Node = Record<string, unknown>;
const mapping = (value: unknown): Node | undefined =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Node) : undefined;
const portOf = (listen: unknown, fallback?: number): number | undefined => {
  const port = mapping(listen) ? mapping(listen)!['port'] : undefined;
  if (port === undefined) return fallback;
  return Number.isInteger(port) ? (port as number) : undefined;
};

export function crossCheckProblems(raw: Node): Problem[] {
  return [...portProblems(raw), ...accessNameProblems(raw)];
}

/**
 * Every listener on its own port (0, "any free port", excepted): two on one port would fail at
 * start-up with EADDRINUSE, or — on two host addresses — serve the admin plane on an address
 * meant for traffic; `check-config` says so before anything starts.
 */
function portProblems(raw: Node): Problem[] {
  const found: Problem[] = [];
  const owners = new Map<number, string>();
  const claim = (port: number | undefined, path: string[]) => {
    if (port === undefined || port === 0) return;
    const other = owners.get(port);
    if (other) found.push({ path, message: `port ${port} is already \`${other}\`` });
    else owners.set(port, path.join('.'));
  };
  const listen = mapping(raw['listen']);
  claim(portOf(listen, LISTEN_PORT), ['listen', 'port']);
  // `metrics.listen` is the admin listener's old name (moved by the schema).
  const admin = mapping(raw['admin'])?.['listen'] ?? mapping(raw['metrics'])?.['listen'];
  claim(portOf(admin, ADMIN_PORT), ['admin', 'listen', 'port']);
  if (mapping(listen?.['grpc'])) claim(portOf(listen!['grpc']), ['listen', 'grpc', 'port']);
  for (const [name, agent] of Object.entries(mapping(raw['agents']) ?? {})) {
    const grpcListen = mapping(mapping(agent)?.['grpc'])?.['listen'];
    if (mapping(grpcListen)) claim(portOf(grpcListen), ['agents', name, 'grpc', 'listen', 'port']);
  }
  return found;
}

/**
 * A name in `access.allow` or `access.methods` that is neither an API-key client nor a group of
 * one matches no caller: most likely a typo that locks the agent's intended callers out. With
 * `auth.jwt`, principals and groups come from tokens the config cannot list, so any name may be
 * right and none is checked. Without `auth` the schema already refuses the rules.
 */
function accessNameProblems(raw: Node): Problem[] {
  const auth = mapping(raw['auth']);
  if (!auth || auth['jwt'] !== undefined) return [];
  const clients = mapping(auth['apiKeys']) ?? {};
  const known = new Set<string>(Object.keys(clients));
  for (const client of Object.values(clients)) {
    const groups = mapping(client)?.['groups'];
    if (Array.isArray(groups)) for (const group of groups) if (typeof group === 'string') known.add(group);
  }
  const found: Problem[] = [];
  const check = (names: unknown, path: PropertyKey[]) => {
    if (!Array.isArray(names)) return;
    names.forEach((name, i) => {
      if (typeof name === 'string' && name !== '' && !known.has(name))
        found.push({
          path: [...path, i],
          message: `"${name}" is neither an \`auth.apiKeys\` client nor a group of one (known: ${[...known].join(', ') || 'none'})`,
        });
    });
  };
  for (const [name, agent] of Object.entries(mapping(raw['agents']) ?? {})) {
    const access = mapping(mapping(agent)?.['access']);
    if (!access) continue;
    check(access['allow'], ['agents', name, 'access', 'allow']);
    for (const [operation, names] of Object.entries(mapping(access['methods']) ?? {}))
      check(names, ['agents', name, 'access', 'methods', operation]);
  }
  return found;
}
