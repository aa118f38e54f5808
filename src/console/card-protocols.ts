/**
 * Which protocol versions and bindings an agent card advertises, for the console's fleet view:
 * those of the interfaces `interfacesOf` lists (src/a2a/card-interfaces.ts; wire-reference §3,
 * §6.5), so the console names the interfaces the card rewrite moves and the findings check.
 */
import { interfacesOf } from '../a2a/card-interfaces.js';

export interface CardProtocols {
  readonly protocolVersions: string[];
  readonly bindings: string[];
}

export function cardProtocols(card: Record<string, unknown> | undefined): CardProtocols {
  const versions = new Set<string>();
  const bindings = new Set<string>();
  for (const { binding, version } of interfacesOf(card)) {
    add(bindings, binding);
    add(versions, majorMinor(version));
  }
  return { protocolVersions: [...versions].sort().reverse(), bindings: [...bindings] };
}

function add(set: Set<string>, value: unknown): void {
  if (typeof value === 'string' && value !== '') set.add(value);
}

/** `1.0.1` → `1.0`; the console groups by major.minor. */
function majorMinor(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const match = /^(\d+)\.(\d+)/.exec(value);
  return match ? `${match[1]}.${match[2]}` : undefined;
}
