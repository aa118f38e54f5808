/**
 * Which A2A version a request speaks (wire-reference §1.4, §6.1, §8 checklist).
 * Order: `A2A-Version` header, then the `A2A-Version` query parameter (§3.6.1), then what the
 * request itself shows (JSON-RPC method name, REST `/v1/` prefix, gRPC package, payload shape), and with no
 * signal at all 0.3, as servers must assume (§3.6.1, §3.6.2).
 */
import type { FindingSink } from './findings.js';
import type { ProtocolVersion } from './operations.js';

export type VersionSignal =
  'header' | 'query' | 'jsonrpc-method' | 'rest-path' | 'grpc-package' | 'payload' | 'default';

export interface VersionEvidence {
  /** Raw `a2a-version` header value. */
  readonly header: string | undefined;
  /** Raw `A2A-Version` query parameter value. */
  readonly query: string | undefined;
  /** Version whose JSON-RPC method table holds the method name. */
  readonly method: ProtocolVersion | undefined;
  /** `0.3` for a `/v1/...` REST route, `1.0` for any other REST route. */
  readonly restPath: ProtocolVersion | undefined;
  /** `0.3` for a gRPC method of package `a2a.v1`, `1.0` for `lf.a2a.v1` (wire-reference §6.1). */
  readonly grpcPackage?: ProtocolVersion | undefined;
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
export function parseVersion(raw: string): {
  readonly version: ProtocolVersion | undefined;
  readonly hasPatch: boolean;
} {
  // Clients send one or two distinct values; remember them (the regex showed in profiles).
  let parsed = parsedVersions.get(raw);
  if (parsed === undefined) {
    parsed = parseVersionText(raw);
    if (parsedVersions.size < 64) parsedVersions.set(raw, parsed);
  }
  return parsed;
}

const parsedVersions = new Map<string, { readonly version: ProtocolVersion | undefined; readonly hasPatch: boolean }>();

function parseVersionText(raw: string): { readonly version: ProtocolVersion | undefined; readonly hasPatch: boolean } {
  const m = /^\s*(\d+)\.(\d+)(\.\d+)?\s*$/.exec(raw);
  if (m === null) return { version: undefined, hasPatch: false };
  const majorMinor = `${Number(m[1])}.${Number(m[2])}`;
  const version = majorMinor === '1.0' || majorMinor === '0.3' ? majorMinor : undefined;
  return { version, hasPatch: m[3] !== undefined };
}

/** Every decision there can be, made once (no object per request). */
const DECISIONS: Readonly<Record<VersionSignal, Readonly<Record<ProtocolVersion, VersionDecision>>>> = {
  header: { '1.0': { version: '1.0', signal: 'header' }, '0.3': { version: '0.3', signal: 'header' } },
  query: { '1.0': { version: '1.0', signal: 'query' }, '0.3': { version: '0.3', signal: 'query' } },
  'jsonrpc-method': {
    '1.0': { version: '1.0', signal: 'jsonrpc-method' },
    '0.3': { version: '0.3', signal: 'jsonrpc-method' },
  },
  'rest-path': { '1.0': { version: '1.0', signal: 'rest-path' }, '0.3': { version: '0.3', signal: 'rest-path' } },
  'grpc-package': {
    '1.0': { version: '1.0', signal: 'grpc-package' },
    '0.3': { version: '0.3', signal: 'grpc-package' },
  },
  payload: { '1.0': { version: '1.0', signal: 'payload' }, '0.3': { version: '0.3', signal: 'payload' } },
  default: { '1.0': { version: '1.0', signal: 'default' }, '0.3': { version: '0.3', signal: 'default' } },
};

export function decideVersion(evidence: VersionEvidence, findings: FindingSink): VersionDecision {
  const declared =
    declaredVersion(evidence.header, 'header', findings) ?? declaredVersion(evidence.query, 'query', findings);
  if (declared !== undefined) {
    const version = declared.version;
    const disagreeing =
      (evidence.method !== undefined && evidence.method !== version) ||
      (evidence.restPath !== undefined && evidence.restPath !== version) ||
      (evidence.grpcPackage !== undefined && evidence.grpcPackage !== version) ||
      (evidence.payload !== undefined && evidence.payload !== version);
    if (disagreeing) findings.add('a2a.version-signals-disagree', `declared ${version}`);
    return declared;
  }
  const sniffed = sniffVersion(evidence);
  if (sniffed !== undefined) {
    if (sniffed.version === '1.0') findings.add('a2a.version-header-missing');
    return sniffed;
  }
  return DECISIONS.default['0.3'];
}

function declaredVersion(
  raw: string | undefined,
  signal: 'header' | 'query',
  findings: FindingSink,
): VersionDecision | undefined {
  // An empty value counts as absent (§3.6.1).
  if (raw === undefined || raw.trim() === '') return undefined;
  const { version, hasPatch } = parseVersion(raw);
  if (version === undefined) {
    findings.add('a2a.version-unknown', raw.slice(0, 32));
    return undefined;
  }
  if (hasPatch) findings.add('a2a.version-patch-sent', raw.slice(0, 32));
  return DECISIONS[signal][version];
}

function sniffVersion(evidence: VersionEvidence): VersionDecision | undefined {
  if (evidence.method !== undefined) return DECISIONS['jsonrpc-method'][evidence.method];
  if (evidence.restPath !== undefined) return DECISIONS['rest-path'][evidence.restPath];
  if (evidence.grpcPackage !== undefined) return DECISIONS['grpc-package'][evidence.grpcPackage];
  if (evidence.payload !== undefined) return DECISIONS.payload[evidence.payload];
  return undefined;
}
