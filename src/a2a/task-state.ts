/**
 * Task states, normalised to their 1.0 ProtoJSON names whatever the wire spelling
 * (wire-reference §2.2; 0.3 spellings §6.3, §6.4).
 */
import type { ProtocolVersion } from './operations.js';

export const TASK_STATES = [
  'TASK_STATE_UNSPECIFIED',
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_AUTH_REQUIRED',
] as const;

export type TaskState = (typeof TASK_STATES)[number];

const BY_SUFFIX: ReadonlyMap<string, TaskState> = new Map([
  ['UNSPECIFIED', 'TASK_STATE_UNSPECIFIED'],
  // 0.3 JSON-RPC has `unknown` where 1.0 has UNSPECIFIED (wire-reference §6.3).
  ['UNKNOWN', 'TASK_STATE_UNSPECIFIED'],
  ['SUBMITTED', 'TASK_STATE_SUBMITTED'],
  ['WORKING', 'TASK_STATE_WORKING'],
  ['COMPLETED', 'TASK_STATE_COMPLETED'],
  ['FAILED', 'TASK_STATE_FAILED'],
  ['CANCELED', 'TASK_STATE_CANCELED'],
  // 0.3 proto / REST spelled it with a double L (wire-reference §2.2, §6.4, §7.2).
  ['CANCELLED', 'TASK_STATE_CANCELED'],
  ['INPUT_REQUIRED', 'TASK_STATE_INPUT_REQUIRED'],
  ['REJECTED', 'TASK_STATE_REJECTED'],
  ['AUTH_REQUIRED', 'TASK_STATE_AUTH_REQUIRED'],
]);

/**
 * Maps any wire spelling to the 1.0 name: `TASK_STATE_COMPLETED`, `completed`,
 * `input-required`, `TASK_STATE_CANCELLED`, and the ProtoJSON integer form (0…8, which ProtoJSON
 * parsers accept, wire-reference §0). `undefined` when the value is no task state at all.
 */
export function normaliseTaskState(wire: unknown): TaskState | undefined {
  if (typeof wire === 'number') {
    return Number.isInteger(wire) ? TASK_STATES[wire] : undefined;
  }
  if (typeof wire !== 'string' || wire.length > 40) return undefined;
  // The usual spellings in one lookup; case changes and `-` → `_` only for the others (this
  // runs for every stream event, and the regex showed in the profile).
  const usual = USUAL_SPELLINGS.get(wire);
  if (usual !== undefined) return usual;
  let name = wire.toUpperCase().replace(/-/g, '_');
  if (name.startsWith('TASK_STATE_')) name = name.slice('TASK_STATE_'.length);
  return BY_SUFFIX.get(name);
}

/** `TASK_STATE_INPUT_REQUIRED` (1.0, 0.3 REST) and `input-required` (0.3 JSON-RPC) of every state. */
export const USUAL_SPELLINGS: ReadonlyMap<string, TaskState> = new Map(
  [...BY_SUFFIX].flatMap(([suffix, state]) => [
    [`TASK_STATE_${suffix}`, state] as const,
    [suffix.toLowerCase().replace(/_/g, '-'), state] as const,
  ]),
);

/** COMPLETED, FAILED, CANCELED, REJECTED: the task is immutable from now on (wire-reference §5.2). */
export function isTerminal(state: TaskState | undefined): boolean {
  return (
    state === 'TASK_STATE_COMPLETED' ||
    state === 'TASK_STATE_FAILED' ||
    state === 'TASK_STATE_CANCELED' ||
    state === 'TASK_STATE_REJECTED'
  );
}

/**
 * INPUT_REQUIRED and AUTH_REQUIRED in 1.0 (wire-reference §2.2, §5.2). The 0.3 proto called
 * AUTH_REQUIRED "neither interrupted nor terminal" (wire-reference §6.6), hence the version parameter.
 */
export function isInterrupted(state: TaskState | undefined, version: ProtocolVersion = '1.0'): boolean {
  if (state === 'TASK_STATE_INPUT_REQUIRED') return true;
  return state === 'TASK_STATE_AUTH_REQUIRED' && version === '1.0';
}
