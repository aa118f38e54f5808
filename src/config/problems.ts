/**
 * One config problem as the operator reads it: `key.path: what is wrong (got <value>)`. The value
 * is the one written at that key (after `${ENV}` substitution), so a message that says "expected
 * a number" also says what it got; a secret's value is never shown (secrets.ts). An unknown key
 * names the allowed key it is most likely a typo of.
 */
import type { z } from 'zod';
import { distance } from 'fastest-levenshtein';
import { isSecretPath } from './secrets.js';
import type { Problem } from './problem.js';

/** The value at a key path of the config as written, or undefined. */
export function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let node = root;
  for (const key of path) {
    if (!node || typeof node !== 'object') return undefined;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node;
}

const MAX_SHOWN = 60;

/**
 * ` (got …)` for a scalar or a list of scalars; nothing for a mapping (the message names its keys)
 * or a missing value, nor when the message already quotes the value.
 */
export function gotSuffix(root: unknown, path: readonly PropertyKey[], message: string): string {
  const value = valueAt(root, path);
  if (value === undefined) return '';
  if (isSecretPath(path)) {
    const length = typeof value === 'string' ? `, ${value.length} characters` : '';
    return ` (got a secret${length}: not shown)`;
  }
  const scalar = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);
  if (!(scalar(value) || (Array.isArray(value) && value.every(scalar)))) return '';
  // A URL's `user:password@` is a credential wherever it is written (fields.ts refuses it in agent URLs).
  const text = JSON.stringify(value).replace(/(\b[a-z][a-z0-9+.-]*:\/\/)[^/@"\s]*@/gi, '$1…@');
  // Size, duration and allow-list messages quote the string they refuse; a number is always shown.
  if (typeof value === 'string' && message.includes(text)) return '';
  return ` (got ${text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN - 1)}…` : text})`;
}

/** The allowed key an unknown one is most likely a typo of: at most 2 edits (case ignored), and fewer than its length. */
export function nearestKey(unknown: string, allowed: readonly string[]): string | undefined {
  let best: { key: string; edits: number } | undefined;
  for (const key of allowed) {
    const edits = distance(unknown.toLowerCase(), key.toLowerCase()); // a swapped pair of letters is two
    if (edits <= 2 && edits < unknown.length && (!best || edits < best.edits)) best = { key, edits };
  }
  return best?.key;
}

/**
 * Runs a zod schema and turns its issues into problems. An object's allowed keys are not in a
 * finished issue, so the error map (called with the schema instance, and the issue's full path)
 * notes them for the unknown-key suggestions.
 */
export function schemaProblems<T extends z.ZodType>(
  schema: T,
  input: unknown,
): { data: z.output<T> | undefined; problems: Problem[] } {
  const allowed = new Map<string, string[]>();
  const result = schema.safeParse(input, {
    error: (issue) => {
      if (issue.code === 'unrecognized_keys') {
        const shape = (issue.inst as { _zod?: { def?: { shape?: object } } } | undefined)?._zod?.def?.shape;
        allowed.set(JSON.stringify(issue.path ?? []), Object.keys(shape ?? {}));
      }
      return undefined;
    },
  });
  if (result.success) return { data: result.data, problems: [] };
  const problems = result.error.issues.flatMap((issue): Problem[] => {
    if (issue.code === 'unrecognized_keys') {
      const keys = allowed.get(JSON.stringify(issue.path)) ?? [];
      return issue.keys.map((key) => {
        const near = nearestKey(key, keys);
        return { path: [...issue.path, key], message: near ? `unknown key; did you mean \`${near}\`?` : 'unknown key' };
      });
    }
    return [{ path: issue.path, message: `${issue.message}${gotSuffix(input, issue.path, issue.message)}` }];
  });
  return { data: undefined, problems };
}
