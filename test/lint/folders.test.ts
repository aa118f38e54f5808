/**
 * The folder rules of docs/ARCHITECTURE.md ("Folder rules"): no two folders of src/ import each
 * other, so each seam has one direction and a change on one side never needs the other. A
 * folder is a top-level folder of src/ (src/bindings/http and src/bindings/grpc each count as
 * one: the two bindings may not reach into each other either); a file directly in src/ is its
 * own node. Contracts both sides need (the call, the answer rewrites) live in the neutral
 * src/exchange/.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, dirname, normalize, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = fileURLToPath(new URL('../../src', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'ui' ? [] : sourceFiles(path); // the console page runs in the browser
    return path.endsWith('.ts') ? [path] : [];
  });
}

function nodeOf(file: string): string {
  const parts = relative(src, file).split(sep);
  if (parts.length === 1) return parts[0]!;
  return parts[0] === 'bindings' ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

/** `from → to` for every import of one node by another, with the files that make it. */
function folderEdges(): Map<string, string[]> {
  const edges = new Map<string, string[]>();
  for (const file of sourceFiles(src)) {
    for (const match of readFileSync(file, 'utf8').matchAll(/from\s+'(\.[^']+)'/g)) {
      const target = normalize(join(dirname(file), match[1]!)).replace(/\.js$/, '.ts');
      const [from, to] = [nodeOf(file), nodeOf(target)];
      if (from === to) continue;
      const key = `${from} → ${to}`;
      edges.set(key, [...(edges.get(key) ?? []), relative(src, file)]);
    }
  }
  return edges;
}

describe('folder boundaries', () => {
  const edges = folderEdges();

  it('sees the imports it judges (the pipeline reads the exchange, the bindings the pipeline)', () => {
    expect(edges.has('pipeline → exchange')).toBe(true);
    expect(edges.has('bindings/http → pipeline')).toBe(true);
    expect(edges.has('bindings/grpc → pipeline')).toBe(true);
  });

  it('has no two folders that import each other', () => {
    const pairs: string[] = [];
    for (const key of edges.keys()) {
      const [from, to] = key.split(' → ') as [string, string];
      if (from < to && edges.has(`${to} → ${from}`)) {
        pairs.push(`${key} (${edges.get(key)!.join(', ')}) and back (${edges.get(`${to} → ${from}`)!.join(', ')})`);
      }
    }
    expect(pairs).toEqual([]);
  });

  it('keeps the two bindings apart: neither imports the other', () => {
    expect(edges.get('bindings/http → bindings/grpc')).toBeUndefined();
    expect(edges.get('bindings/grpc → bindings/http')).toBeUndefined();
  });

  it('hands no HTTP/2 object over as a node:http one (no `as unknown as` in the bindings or the pipeline)', () => {
    const casts = sourceFiles(src)
      .filter((f) => /[/\\](bindings|pipeline|exchange)[/\\]/.test(f))
      .filter((f) => readFileSync(f, 'utf8').includes('as unknown as'))
      .map((f) => relative(src, f));
    expect(casts).toEqual([]);
  });
});
