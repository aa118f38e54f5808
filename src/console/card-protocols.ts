/**
 * Which protocol versions and bindings an agent card advertises, for the console's fleet view
 * (docs/wire-reference.md §3, §6.5): 1.0 cards list `supportedInterfaces[]` with
 * `protocolBinding` and `protocolVersion`; 0.3 cards have `protocolVersion`, `preferredTransport`
 * (JSONRPC when absent) and `additionalInterfaces[].transport`. a2a-js compat servers serve
 * hybrids with both, so both are read (as src/a2a/card-findings.ts does).
 */

export interface CardProtocols {
  readonly protocolVersions: string[];
  readonly bindings: string[];
}

export function cardProtocols(card: Record<string, unknown> | undefined): CardProtocols {
  const versions = new Set<string>();
  const bindings = new Set<string>();
  if (card === undefined) return { protocolVersions: [], bindings: [] };
  for (const entry of listOf(card['supportedInterfaces'])) {
    add(bindings, entry['protocolBinding']);
    add(versions, majorMinor(entry['protocolVersion']));
  }
  if (typeof card['url'] === 'string' || card['preferredTransport'] !== undefined) {
    add(bindings, card['preferredTransport'] ?? 'JSONRPC');
    add(versions, majorMinor(card['protocolVersion']) ?? '0.3');
  }
  for (const entry of listOf(card['additionalInterfaces'])) add(bindings, entry['transport']);
  return { protocolVersions: [...versions].sort().reverse(), bindings: [...bindings] };
}

function listOf(value: unknown): Array<Record<string, unknown>> {
  return Array.isArray(value)
    ? value.filter((e): e is Record<string, unknown> => e !== null && typeof e === 'object')
    : [];
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
