/**
 * Which A2A version a request speaks (wire-ref §1.4, §6.1, §8 checklist).
 * Order: `A2A-Version` header, then the `A2A-Version` query parameter (§3.6.1), then what the
 * request itself shows (JSON-RPC method name, REST `/v1/` prefix, payload shape), and with no
 * signal at all 0.3, as servers must assume (§3.6.1, §3.6.2).
 */
import type { FindingSink } from './findings.js';
import type { ProtocolVersion } from './operations.js';

export type VersionSignal = 'header' | 'query' | 'jsonrpc-method' | 'rest-path' | 'payload' | 'default';

export interface VersionEvidence {
  /** Raw `a2a-version` header value. */
  readonly header: string | undefined;
  /** Raw `A2A-Version` query parameter value. */
  readonly query: string | undefined;
  /** Version whose JSON-RPC method table holds the method name. */
  readonly method: ProtocolVersion | undefined;
  /** `0.3` for a `/v1/...` REST route, `1.0` for any other REST route. */
  readonly restPath: ProtocolVersion | undefined;
  /** What the body looks like (`kind` keys, lowercase enums, `content` parts → 0.3). */
  readonly payload: ProtocolVersion | undefined;
}

export interface VersionDecision {
  readonly version: ProtocolVersion;
  readonly signal: VersionSignal;
}

/**
 * `Major.Minor` of a version string. Patch numbers are ignored for negotiation (§3.6) but
 * reported, since they SHOULD NOT be sent and the captured SDK rejects them
 * (`v1--edge-rpc-version-1.0.0.http`).
 */
export function parseVersion(raw: string): { version: ProtocolVersion | undefined; hasPatch: boolean } {
  const m = /^\s*(\d+)\.(\d+)(\.\d+)?\s*$/.exec(raw);
  if (m === null) return { version: undefined, hasPatch: false };
  const majorMinor = `${Number(m[1])}.${Number(m[2])}`;
  const version = majorMinor === '1.0' || majorMinor === '0.3' ? majorMinor : undefined;
  return { version, hasPatch: m[3] !== undefined };
}

export function decideVersion(evidence: VersionEvidence, findings: FindingSink): VersionDecision {
  const declared = declaredVersion(evidence, findings);
  const sniffed = sniffVersion(evidence);
  if (declared !== undefined) {
    const disagreeing = [evidence.method, evidence.restPath, evidence.payload].filter(
      (v) => v !== undefined && v !== declared.version,
    );
    if (disagreeing.length > 0) findings.add('a2a.version-signals-disagree', `declared ${declared.version}`);
    return declared;
  }
  if (sniffed !== undefined) {
    if (sniffed.version === '1.0') findings.add('a2a.version-header-missing');
    return sniffed;
  }
  return { version: '0.3', signal: 'default' };
}

function declaredVersion(evidence: VersionEvidence, findings: FindingSink): VersionDecision | undefined {
  for (const [raw, signal] of [
    [evidence.header, 'header'],
    [evidence.query, 'query'],
  ] as const) {
    // An empty value counts as absent (§3.6.1).
    if (raw === undefined || raw.trim() === '') continue;
    const { version, hasPatch } = parseVersion(raw);
    if (version === undefined) {
      findings.add('a2a.version-unknown', raw.slice(0, 32));
      continue;
    }
    if (hasPatch) findings.add('a2a.version-patch-sent', raw.slice(0, 32));
    return { version, signal };
  }
  return undefined;
}

function sniffVersion(evidence: VersionEvidence): VersionDecision | undefined {
  if (evidence.method !== undefined) return { version: evidence.method, signal: 'jsonrpc-method' };
  if (evidence.restPath !== undefined) return { version: evidence.restPath, signal: 'rest-path' };
  if (evidence.payload !== undefined) return { version: evidence.payload, signal: 'payload' };
  return undefined;
}
