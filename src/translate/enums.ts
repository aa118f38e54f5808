/**
 * Enum spellings per version (wire-reference §2.1, §2.2, §6.3, §6.4): 1.0 JSON uses the proto
 * names (`TASK_STATE_WORKING`, `ROLE_USER`); 0.3 JSON-RPC lowercase literals (`working`,
 * `user`); 0.3 HTTP+JSON the 0.3 proto names, which spell CANCELLED with two Ls.
 */
import { Untranslatable } from './shapes.js';

const STATES: readonly (readonly [v1: string, rpc03: string])[] = [
  ['TASK_STATE_UNSPECIFIED', 'unknown'],
  ['TASK_STATE_SUBMITTED', 'submitted'],
  ['TASK_STATE_WORKING', 'working'],
  ['TASK_STATE_COMPLETED', 'completed'],
  ['TASK_STATE_FAILED', 'failed'],
  ['TASK_STATE_CANCELED', 'canceled'],
  ['TASK_STATE_INPUT_REQUIRED', 'input-required'],
  ['TASK_STATE_REJECTED', 'rejected'],
  ['TASK_STATE_AUTH_REQUIRED', 'auth-required'],
];
const STATE_TO_RPC03 = new Map(STATES);
const STATE_FROM_RPC03 = new Map(STATES.map(([v1, rpc]) => [rpc, v1]));

/** States after which a 1.0 stream ends (terminal or interrupted, wire-reference §5.2, §5.3). */
const LAST_STATES = new Set([
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_AUTH_REQUIRED',
]);

function known(map: ReadonlyMap<string, string>, value: unknown, where: string): string {
  const to = typeof value === 'string' ? map.get(value) : undefined;
  if (to === undefined) throw new Untranslatable(where, `unknown value ${JSON.stringify(value)}`);
  return to;
}

export const stateToRpc03 = (s: unknown, where: string): string => known(STATE_TO_RPC03, s, where);
export const stateFromRpc03 = (s: unknown, where: string): string => known(STATE_FROM_RPC03, s, where);

/** 0.3 HTTP+JSON: the 1.0 names but TASK_STATE_CANCELLED (0.3 proto). */
export function stateToRest03(s: unknown, where: string): string {
  known(STATE_TO_RPC03, s, where);
  return s === 'TASK_STATE_CANCELED' ? 'TASK_STATE_CANCELLED' : (s as string);
}
export function stateFromRest03(s: unknown, where: string): string {
  if (s === 'TASK_STATE_CANCELLED') return 'TASK_STATE_CANCELED';
  known(STATE_TO_RPC03, s, where);
  return s as string;
}

/** A 0.3 status-update's `final`: the 1.0 stream ends after this state. */
export function endsStream(v1State: string): boolean {
  return LAST_STATES.has(v1State);
}

const ROLES = new Map([
  ['ROLE_USER', 'user'],
  ['ROLE_AGENT', 'agent'],
]);
const ROLES_BACK = new Map([...ROLES].map(([v1, rpc]) => [rpc, v1]));

export const roleToRpc03 = (r: unknown, where: string): string => known(ROLES, r, where);
export const roleFromRpc03 = (r: unknown, where: string): string => known(ROLES_BACK, r, where);
