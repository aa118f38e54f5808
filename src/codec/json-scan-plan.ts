/**
 * The wanted paths of a JSON scan, compiled once into a trie the scanner walks alongside the
 * document (path syntax in json-fields.ts: dotted keys, `*` for any array element).
 */
import { splitPath } from './json-fields.js';

export interface PathNode {
  readonly children: Map<string, PathNode> | undefined;
  readonly wildcard: PathNode | undefined;
  /** Set when this node is itself a wanted path: the key its hit is stored under. */
  readonly path: string | undefined;
}

/** Compiled set of wanted paths; build once per decoder kind and share. */
export interface ScanPlan {
  readonly root: PathNode;
}

interface MutableNode {
  children: Map<string, MutableNode> | undefined;
  wildcard: MutableNode | undefined;
  path: string | undefined;
}

const emptyNode = (): MutableNode => ({ children: undefined, wildcard: undefined, path: undefined });

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
      }
      node = child;
    }
    node.path = path;
  }
  return { root };
}

/** Whether a wanted path lies below this node, so its container must be walked, not skipped. */
export function hasDescendants(node: PathNode): boolean {
  return node.children !== undefined || node.wildcard !== undefined;
}
