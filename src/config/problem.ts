/**
 * One config problem and how the operator reads it: `key.path: what is wrong`, file-wide ones
 * (YAML syntax) first, the rest sorted by key path. Every source of problems — the schema
 * (problems.ts), placeholder secrets (secrets.ts), the cross-checks — gives this shape.
 */

export interface Problem {
  /** The key path; undefined for a problem of the file as a whole (YAML syntax). */
  readonly path: readonly PropertyKey[] | undefined;
  readonly message: string;
}

function formatPath(path: readonly PropertyKey[]): string {
  return (
    path.reduce<string>(
      (acc, key) => (typeof key === 'number' ? `${acc}[${key}]` : acc ? `${acc}.${String(key)}` : String(key)),
      '',
    ) || '(root)'
  );
}

export const problemText = (problem: Problem): string =>
  problem.path === undefined ? problem.message : `${formatPath(problem.path)}: ${problem.message}`;

/** File-wide problems first, in the order found; then by key path, segment by segment (indices as numbers). */
export function byPath(a: Problem, b: Problem): number {
  if (a.path === undefined || b.path === undefined)
    return (a.path === undefined ? 0 : 1) - (b.path === undefined ? 0 : 1);
  for (let i = 0; i < Math.min(a.path.length, b.path.length); i++) {
    const [x, y] = [a.path[i]!, b.path[i]!];
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    return String(x) < String(y) ? -1 : 1;
  }
  return a.path.length - b.path.length;
}
