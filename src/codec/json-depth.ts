/**
 * Whether a parsed JSON value nests deeper than `max` arrays and objects. JSON.parse takes any
 * depth, but a recursive walk of the result (JSON.stringify, a card rewrite) overflows the stack
 * somewhere past ten thousand levels (issue #29): a value from a peer is checked before such a
 * walk. Iterative, so the check itself cannot overflow; it stops at the first path past `max`.
 */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth >= max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}
