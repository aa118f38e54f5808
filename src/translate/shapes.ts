/**
 * What every translator (docs/translation.md) shares: JSON objects read without trusting them,
 * a copy that keeps every member it does not translate (unknown members pass through untouched,
 * issue 28 / wire-reference §7.3), and the one error a translation refuses with.
 */
export type Json = unknown;
export type Obj = Record<string, unknown>;

export function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * What cannot be translated without changing its meaning: the call is refused (or the answer
 * replaced by an error), never passed on altered. `where` names the member (for the error text).
 */
export class Untranslatable extends Error {
  constructor(
    readonly where: string,
    why: string,
    /** The operation has no counterpart in the other version (UnsupportedOperation, -32004). */
    readonly unsupported = false,
  ) {
    super(`${where}: ${why}`);
    this.name = 'Untranslatable';
  }
}

/** `from`'s members except `taken`, in their order; the translated ones are set after. */
export function rest(from: Obj, taken: readonly string[]): Obj {
  const out: Obj = {};
  for (const key of Object.keys(from)) if (!taken.includes(key)) out[key] = from[key];
  return out;
}

/** `value` must be an object (`where` names it in the refusal). */
export function objectAt(value: unknown, where: string): Obj {
  if (!isObj(value)) throw new Untranslatable(where, 'expected an object');
  return value;
}

/** Each element of an optional array, mapped; absent stays absent. */
export function mapList(value: unknown, where: string, each: (item: unknown, where: string) => unknown): unknown {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) throw new Untranslatable(where, 'expected an array');
  return value.map((item, i) => each(item, `${where}[${i}]`));
}

/** Sets `key` only when `value` is defined (absent members stay absent). */
export function put(to: Obj, key: string, value: unknown): void {
  if (value !== undefined) to[key] = value;
}
