/**
 * The wanted paths of a JSON scan, compiled once into a trie the scanner walks alongside the
 * document (path syntax in json-fields.ts: dotted keys, `*` for any array element).
 */
import { splitPath } from './json-fields.js';

export interface PathNode {
  readonly children: Map<string, PathNode> | undefined;
  /**
   * The same children by their keys' UTF-8 bytes, bucketed by byte length, so the scanner
   * matches a key in the body's bytes without decoding it to a string (json-scan.ts).
   */
  readonly keys: KeyTable | undefined;
  readonly wildcard: PathNode | undefined;
  /** Set when this node is itself a wanted path: the key its hit is stored under. */
  readonly path: string | undefined;
}

/** `table[n]`: the children whose keys are `n` bytes long, with those bytes. */
export type KeyTable = ReadonlyArray<ReadonlyArray<readonly [bytes: Uint8Array, node: PathNode]> | undefined>;

/** Compiled set of wanted paths; build once per decoder kind and share. */
export interface ScanPlan {
  readonly root: PathNode;
  /** The wanted paths, as given. */
  readonly paths: ReadonlySet<string>;
}

interface MutableNode {
  children: Map<string, MutableNode> | undefined;
  keys: Array<Array<readonly [Uint8Array, MutableNode]> | undefined> | undefined;
  wildcard: MutableNode | undefined;
  path: string | undefined;
}

const emptyNode = (): MutableNode => ({ children: undefined, keys: undefined, wildcard: undefined, path: undefined });
const utf8 = new TextEncoder();

export function compileScanPlan(paths: readonly string[]): ScanPlan {
  const root = emptyNode();
  for (const path of paths) {
    let node = root;
    for (const segment of splitPath(path)) {
      if (segment === '*') {
        node.wildcard ??= emptyNode();
        node = node.wildcard;
        continue;
      }
      node.children ??= new Map();
      let child = node.children.get(segment);
      if (child === undefined) {
        child = emptyNode();
        node.children.set(segment, child);
        const bytes = utf8.encode(segment);
        node.keys ??= [];
        (node.keys[bytes.length] ??= []).push([bytes, child]);
      }
      node = child;
    }
    node.path = path;
  }
  return { root, paths: new Set(paths) };
}

/**
 * The paths and every container on the way to them up to the first `*` (`a.b.*.c` → `''`, `a`,
 * `a.b`, `a.b.*.c`). Readers of the scanner's skeleton step through those containers, so
 * recording them too makes the skeleton hold them exactly when the document does. Costs nothing
 * in the scan: a container with wanted paths below it is walked anyway. Below a `*` each path
 * has its own first match, possibly in another element: the skeleton merges them into one
 * element, which is exact only for single keys there (`*.kind`), the only kind readers use.
 */
export function withContainers(paths: readonly string[]): string[] {
  const out = new Set<string>();
  for (const path of paths) {
    const segments = splitPath(path);
    const wildcard = segments.indexOf('*');
    // Prefixes up to the array a `*` steps into (`a.b` of `a.b.*.c`), or the whole path.
    const last = wildcard < 0 ? segments.length : wildcard;
    for (let i = 0; i <= last; i++) out.add(segments.slice(0, i).join('.'));
    out.add(path);
  }
  return [...out];
}

/** Whether a wanted path lies below this node, so its container must be walked, not skipped. */
export function hasDescendants(node: PathNode): boolean {
  return node.children !== undefined || node.wildcard !== undefined;
}
