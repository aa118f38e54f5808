/**
 * Reads a YAML config file, substitutes `${ENV_VAR}` in string values and validates it.
 * Every problem is reported as `file: key.path: what is wrong`, so the operator can fix it
 * without reading code.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { configSchema, type GatewayConfig } from './schema.js';

export class ConfigError extends Error {
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    super(`invalid config ${file}:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/** Replaces `${NAME}` with the variable's value; `$${NAME}` is a literal `${NAME}`. */
function substituteEnv(node: unknown, env: Env, path: string, problems: string[]): unknown {
  if (typeof node === 'string') {
    return node.replace(/\$?\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, name: string) => {
      if (whole.startsWith('$$')) return whole.slice(1);
      const value = env[name];
      if (value === undefined) {
        problems.push(`${path || '(root)'}: environment variable ${name} is not set`);
        return '';
      }
      return value;
    });
  }
  if (Array.isArray(node)) return node.map((item, i) => substituteEnv(item, env, `${path}[${i}]`, problems));
  if (node && typeof node === 'object') {
    return Object.fromEntries(
      Object.entries(node).map(([key, value]) => [
        key,
        substituteEnv(value, env, path ? `${path}.${key}` : key, problems),
      ]),
    );
  }
  return node;
}

function formatPath(path: ReadonlyArray<PropertyKey>): string {
  return (
    path.reduce<string>(
      (acc, key) => (typeof key === 'number' ? `${acc}[${key}]` : acc ? `${acc}.${String(key)}` : String(key)),
      '',
    ) || '(root)'
  );
}

export function parseConfig(text: string, file: string, env: Env = process.env): GatewayConfig {
  let raw: unknown;
  try {
    raw = parse(text, { prettyErrors: true });
  } catch (err) {
    throw new ConfigError(file, [`YAML syntax: ${(err as Error).message}`]);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ConfigError(file, ['(root): expected a mapping with at least `agents:`']);
  }
  const problems: string[] = [];
  const substituted = substituteEnv(raw, env, '', problems);
  if (problems.length) throw new ConfigError(file, problems);
  const result = configSchema.safeParse(substituted);
  if (!result.success) {
    throw new ConfigError(
      file,
      result.error.issues.map((issue) => `${formatPath(issue.path)}: ${issue.message}`),
    );
  }
  return result.data;
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
