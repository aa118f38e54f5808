/**
 * Reads a YAML config file, substitutes `${ENV_VAR}` in string values and validates it.
 * Every problem is reported as `file: key.path: what is wrong`, so the operator can fix it
 * without reading code — and all of them at once (issue #30): YAML syntax, unset variables,
 * the schema, placeholder secrets and the cross-checks each add to one list, sorted by key path,
 * instead of the first kind found hiding the others until it is fixed.
 */
import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import { configSchema, type GatewayConfig } from './schema.js';
import { byPath, problemText, type Problem } from './problem.js';
import { schemaProblems } from './problems.js';
import { placeholderProblems } from './secrets.js';
import { crossCheckProblems } from './cross-checks.js';

export class ConfigError extends Error {
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
    super(`invalid config ${file} (${count}):\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/**
 * Replaces `${NAME}` with the variable's value; `$${NAME}` is a literal `${NAME}`. An unset
 * variable is a problem, and an empty stand-in takes its place so that the rest of the file is
 * still validated; its key path goes to `unset`, whose own schema problems are then moot.
 */
function substituteEnv(
  node: unknown,
  env: Env,
  path: PropertyKey[],
  found: Problem[],
  unset: PropertyKey[][],
): unknown {
  if (typeof node === 'string') {
    return node.replace(/\$?\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, name: string) => {
      if (whole.startsWith('$$')) return whole.slice(1);
      const value = env[name];
      if (value === undefined) {
        found.push({ path, message: `environment variable ${name} is not set` });
        unset.push(path);
        return '';
      }
      return value;
    });
  }
  if (Array.isArray(node)) return node.map((item, i) => substituteEnv(item, env, [...path, i], found, unset));
  if (node && typeof node === 'object') {
    return Object.fromEntries(
      Object.entries(node).map(([key, value]) => [key, substituteEnv(value, env, [...path, key], found, unset)]),
    );
  }
  return node;
}

const under = (path: readonly PropertyKey[], prefix: readonly PropertyKey[]) =>
  prefix.length <= path.length && prefix.every((key, i) => key === path[i]);

/**
 * The YAML document and its syntax problems, all of them. The parser recovers from a syntax
 * error and still builds a document, so the rest is validated too; a problem after a syntax
 * error may be its consequence (docs/configuration.md).
 */
function parseYaml(text: string): { raw: unknown; problems: Problem[] } {
  const doc = parseDocument(text, { prettyErrors: true });
  const problems = doc.errors.map((err) => ({
    path: undefined,
    message: `YAML syntax: ${err.message.split('\n')[0]!.replace(/:$/, '')}`,
  }));
  try {
    return { raw: doc.toJS(), problems };
  } catch (err) {
    return { raw: undefined, problems: [...problems, { path: undefined, message: `YAML: ${(err as Error).message}` }] };
  }
}

export function parseConfig(text: string, file: string, env: Env = process.env): GatewayConfig {
  const { raw, problems } = parseYaml(text);
  const fail = (found: Problem[]) => new ConfigError(file, [...found].sort(byPath).map(problemText));
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw fail([...problems, { path: [], message: 'expected a mapping with at least `agents:`' }]);
  }
  const unset: PropertyKey[][] = [];
  const substituted = substituteEnv(raw, env, [], problems, unset) as Record<string, unknown>;
  const schema = schemaProblems(configSchema, substituted);
  const moot = (p: Problem) => p.path !== undefined && unset.some((prefix) => under(p.path!, prefix));
  problems.push(
    ...[...schema.problems, ...placeholderProblems(substituted), ...crossCheckProblems(substituted)].filter(
      (p) => !moot(p),
    ),
  );
  if (problems.length > 0 || schema.data === undefined) throw fail(problems);
  return schema.data;
}

export function loadConfigFile(file: string, env: Env = process.env): GatewayConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(file, [`cannot read file: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`]);
  }
  return parseConfig(text, file, env);
}
