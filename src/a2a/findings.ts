/**
 * Findings: protocol observations the decoders make while the bytes go by unchanged
 * (principle 5: inspection never alters or refuses traffic). Each rule has a stable id
 * for metrics labels and log queries, the spec section it rests on, and one line of text.
 * Sections are those of the A2A v1.0.1 specification unless prefixed; "wire-reference" is
 * docs/wire-reference.md. The gateway.* rules rest on no spec section but on the gateway's own
 * principles (docs/ARCHITECTURE.md).
 */

export type Severity = 'error' | 'warn' | 'info';

export interface RuleInfo {
  readonly section: string;
  readonly severity: Severity;
  readonly description: string;
}

/** Every rule the decoders can report. Keep ids stable: they are metric label values. */
export const RULES = {
  'a2a.send-result-shape': {
    section: '§3.1.1, §9.4.1, §11.4 (wire-reference §2.4)',
    severity: 'error',
    description: 'SendMessage result carries both or neither of task and message.',
  },
  'a2a.blocking-send-not-final': {
    section: '§3.2.2 (wire-reference §5.1)',
    severity: 'error',
    description: 'Blocking SendMessage answered with a task that is neither terminal nor interrupted.',
  },
  'a2a.stream-first-event': {
    section: '§3.1.2, §3.5.2 (wire-reference §5.3)',
    severity: 'error',
    description: 'First stream event is neither a task nor a message.',
  },
  'a2a.stream-message-extra-events': {
    section: '§3.1.2 (wire-reference §5.3)',
    severity: 'error',
    description: 'Message-only stream carries more than one event.',
  },
  'a2a.stream-message-after-task': {
    section: '§3.1.2 (wire-reference §5.3)',
    severity: 'error',
    description: 'Message event after a task event in the same stream.',
  },
  'a2a.stream-event-after-terminal': {
    section: '§3.1.2, §3.1.6; 0.3 `final` (wire-reference §5.3, §6.6)',
    severity: 'error',
    description: 'Stream events after the task reached a terminal state or after a 0.3 final event.',
  },
  'a2a.stream-ended-active': {
    section: '§3.1.2, §3.1.6, §11.7 (wire-reference §5.3, §7.1 #3)',
    severity: 'warn',
    description: 'Agent closed a task stream while the task was still submitted or working.',
  },
  'a2a.stream-cut-mid-event': {
    section: 'W3C server-sent events; §11.7; gRPC Length-Prefixed-Message (wire-reference §1.2, §1.3)',
    severity: 'warn',
    description: 'Stream ended inside an event (SSE: no terminating blank line; gRPC: inside a message).',
  },
  'a2a.task-id-mismatch': {
    section: '§3.1.2, §3.4.1, §3.4.3 (wire-reference §5.4)',
    severity: 'error',
    description: 'Response or stream event concerns another task than the request or the stream.',
  },
  'a2a.history-length-exceeded': {
    section: '§3.2.4 (wire-reference §5.6; 0.3: 0 means unlimited)',
    severity: 'warn',
    description: 'Task history longer than the historyLength the client asked for.',
  },
  'a2a.version-shape-mismatch': {
    section: '§3.6.2, §5.5 (wire-reference §6.3, §6.4)',
    severity: 'error',
    description:
      "Request of one protocol version answered in the wire shape of the other (a task stream's later updates show their shape only in their head unless inspection.streamEvents is full).",
  },
  'a2a.version-header-missing': {
    section: '§3.6.1, §3.6.2 (wire-reference §1.4)',
    severity: 'warn',
    description: 'Request in 1.0 form without A2A-Version; servers must treat it as 0.3.',
  },
  'a2a.version-patch-sent': {
    section: '§3.6 (wire-reference §1.4)',
    severity: 'warn',
    description: 'A2A-Version carries a patch number; only Major.Minor may be sent.',
  },
  'a2a.version-unknown': {
    section: '§3.6.2 (wire-reference §1.4)',
    severity: 'warn',
    description: 'A2A-Version names a version other than 1.0 or 0.3.',
  },
  'a2a.version-signals-disagree': {
    section: '§3.6.2 (wire-reference §6.1)',
    severity: 'info',
    description: 'Declared A2A-Version disagrees with the method name, REST path, gRPC package or payload shape.',
  },
  'a2a.jsonrpc-id-mismatch': {
    section: 'JSON-RPC 2.0 §5; §9.4.2 (wire-reference §1.1)',
    severity: 'error',
    description: 'JSON-RPC response or stream event id differs from the request id.',
  },
  'a2a.jsonrpc-batch': {
    section: '§9 (wire-reference §1.1)',
    severity: 'warn',
    description: 'JSON-RPC batch request; A2A defines single requests only.',
  },
  'a2a.unknown-operation': {
    section: '§5.3, §9, §11 (wire-reference §1, §6.2)',
    severity: 'info',
    description: 'Request matches no A2A operation (unknown JSON-RPC method or REST route).',
  },
  'a2a.invalid-json': {
    section: '§9.1, §11.1; JSON-RPC 2.0 -32700',
    severity: 'error',
    description:
      "Body or stream event is not valid JSON (a task stream's later updates are checked only as far as their head unless inspection.streamEvents is full).",
  },
  'a2a.invalid-protobuf': {
    section: '§10 (wire-reference §1.3); docs/proto/, gRPC over HTTP/2 Length-Prefixed-Message',
    severity: 'error',
    description:
      'A gRPC body or stream message is not valid protobuf, not the one message the call carries, or cut inside a message.',
  },
  'a2a.push-url-private': {
    section: '§13.2 (wire-reference §5.10)',
    severity: 'warn',
    description: 'Push-notification webhook points at a loopback, private or link-local address.',
  },
  'gateway.push-url-refused': {
    section: '§13.2 (wire-reference §5.10); the push-webhook SSRF guard (src/access/push-guard.ts)',
    severity: 'warn',
    description:
      'A push-notification webhook was refused before the agent saw it: not http(s), or it names or resolves to a non-public address.',
  },
  'gateway.inspect-partial': {
    section: 'docs/ARCHITECTURE.md principle 6 (bounded inspection)',
    severity: 'info',
    description: 'Body or event exceeded the inspection cap; facts are partial.',
  },
  'a2a.return-immediately-ignored': {
    section: '§3.2.2 (wire-reference §5.1, §6.3)',
    severity: 'error',
    description:
      'A SendMessage with returnImmediately (0.3: blocking false) got no answer until the client deadline: the agent blocks anyway.',
  },
  'gateway.inspect-error': {
    section: 'docs/ARCHITECTURE.md principle 5 (inspection never breaks forwarding)',
    severity: 'warn',
    description: 'A decoder failed on this exchange; inspection stopped, the bytes were forwarded unchanged.',
  },
  'a2a.extended-card-not-a-card': {
    section: '§3.1.11, §9.4.8 (wire-reference §1, §3)',
    severity: 'error',
    description:
      'GetExtendedAgentCard answered with something else than an agent card (a Task, invalid JSON, no interfaces); its URLs were not rewritten.',
  },
  'card.signature-invalid': {
    section: '§8.4 Agent Card Signing (wire-reference §3)',
    severity: 'warn',
    description:
      "The agent's card was served although no signature verifies with the keys configured for it (agents.{name}.cards.signature): invalid or unsigned.",
  },
  'card.interface-invalid-url': {
    section: '§8.5 AgentInterface.url (wire-reference §3)',
    severity: 'error',
    description: 'Agent card interface URL does not parse.',
  },
  'card.interface-loopback': {
    section: '§8.3.2 (wire-reference §3)',
    severity: 'error',
    description: 'Agent card interface URL points at a loopback address.',
  },
  'card.interface-unspecified': {
    section: '§8.3.2 (wire-reference §3)',
    severity: 'error',
    description: 'Agent card interface URL uses an unspecified address (0.0.0.0 or ::).',
  },
  'card.interface-private': {
    section: '§8.3.2 (wire-reference §3)',
    severity: 'warn',
    description: 'Agent card served publicly advertises a private, link-local or in-cluster address.',
  },
  'card.interface-plain-http': {
    section: '§7.1 (production MUST use TLS)',
    severity: 'warn',
    description: 'Agent card served publicly advertises a plain-http interface URL.',
  },
  'card.no-interfaces': {
    section: '§8.5 supportedInterfaces (REQ); 0.3 url (wire-reference §6.5)',
    severity: 'error',
    description: 'Agent card names no interface URL at all.',
  },
} as const satisfies Record<string, RuleInfo>;

export type RuleId = keyof typeof RULES;

export const RULE_IDS = Object.keys(RULES) as RuleId[];

export interface Finding {
  readonly rule: RuleId;
  /** How often the rule fired in this exchange (e.g. three events after the terminal one). */
  readonly count: number;
  /** Short human detail of the first occurrence; may contain ids, never body content. */
  readonly detail?: string;
}

/** Collects findings for one exchange, one entry per rule. */
const NO_FINDINGS: readonly Finding[] = Object.freeze([]);

export class FindingSink {
  /** Created on the first finding: most exchanges have none. */
  private byRule: Map<RuleId, { count: number; detail: string | undefined }> | undefined = undefined;

  add(rule: RuleId, detail?: string): void {
    this.byRule ??= new Map();
    const entry = this.byRule.get(rule);
    if (entry === undefined) this.byRule.set(rule, { count: 1, detail });
    else entry.count++;
  }

  has(rule: RuleId): boolean {
    return this.byRule !== undefined && this.byRule.has(rule);
  }

  /** Most exchanges have no finding: they share one frozen empty list rather than each allocating one. */
  list(): readonly Finding[] {
    if (this.byRule === undefined) return NO_FINDINGS;
    return [...this.byRule].map(([rule, { count, detail }]) =>
      detail === undefined ? { rule, count } : { rule, count, detail },
    );
  }
}
