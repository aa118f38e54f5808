/**
 * Per-agent authorization: who may call an agent (`access.allow`), and per A2A
 * operation who may call that (`access.methods`, which replaces `allow` for the operations it
 * names). Entries are principal ids or groups, in one namespace. The classifier has already named
 * the operation for every binding and version (src/a2a/operations.ts), so one rule covers
 * JSON-RPC and HTTP+JSON, 1.0 and 0.3 alike. Pure.
 */
import type { Operation } from '../a2a/operations.js';
import type { Principal } from './principal.js';

export interface AccessRules {
  /** Absent: any authenticated caller. */
  readonly allow?: readonly string[];
  readonly methods: Readonly<Partial<Record<string, readonly string[]>>>;
}

function names(list: readonly string[], principal: Principal): boolean {
  return list.includes(principal.id) || principal.groups.some((group) => list.includes(group));
}

/** The list that decides `operation`, or undefined when any authenticated caller may. */
export function ruleFor(rules: AccessRules, operation: Operation): readonly string[] | undefined {
  return Object.hasOwn(rules.methods, operation) ? rules.methods[operation] : rules.allow;
}

export function admits(rules: AccessRules, principal: Principal, operation: Operation): boolean {
  const list = ruleFor(rules, operation);
  return list === undefined || names(list, principal);
}

/** Whether the caller may use the agent at all (some operation admits it): for the public catalog. */
export function mayUse(rules: AccessRules, principal: Principal): boolean {
  if (rules.allow === undefined || names(rules.allow, principal)) return true;
  return Object.values(rules.methods).some((list) => list !== undefined && names(list, principal));
}
