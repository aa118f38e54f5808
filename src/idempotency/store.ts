/**
 * Where idempotent sends are remembered (docs/fleet.md "Idempotent sends"): in this process
 * (memory-store.ts) or in Redis shared by every replica (redis-store.ts), built once with the
 * task store (src/state/build.ts) so it outlives reloads.
 *
 * An entry is claimed by the first send (pending), then settled with its outcome or released
 * when the first ended without one (an error, a cut): a retry then goes to the agent.
 */

/** What the first send came to: the task it created or continued, or the Message it answered. */
export type Outcome =
  | { readonly kind: 'task'; readonly taskId: string }
  | {
      readonly kind: 'message';
      /** The answer's status and content type, and its body as the agent sent it (base64). */
      readonly status: number;
      readonly contentType: string;
      readonly body: string;
    };

export type Claim =
  /** This send is the first: it goes to the agent; `token` settles or releases it. */
  | { readonly state: 'first'; readonly token: string }
  /** Another send holds the key and has no outcome yet. */
  | { readonly state: 'pending'; readonly fingerprint: string }
  | { readonly state: 'settled'; readonly fingerprint: string; readonly outcome: Outcome };

export interface IdempotencyStore {
  /** Claims `key` for `ttlMs` unless it is held; else says what holds it. Rejects when the store cannot answer. */
  claim(key: string, fingerprint: string, ttlMs: number): Promise<Claim>;
  /** The first send's outcome, kept for `ttlMs`: only while `token` still holds the key. */
  settle(key: string, token: string, fingerprint: string, outcome: Outcome, ttlMs: number): Promise<void>;
  /** The first send ended without an outcome: the key is free again (only while `token` holds it). */
  release(key: string, token: string): Promise<void>;
  /** Resolves when `key` may have changed (settled or released), at the latest after `ms`; `attempt` counts the waits (backoff). */
  changed(key: string, ms: number, attempt: number): Promise<void>;
}

/** The store could not answer (Redis down): fail open or closed (`idempotency.failClosed`). */
export class IdempotencyUnavailable extends Error {
  override readonly name = 'IdempotencyUnavailable';
}

/** One entry as kept: JSON in Redis, an object in memory. */
export interface StoredEntry {
  readonly fingerprint: string;
  readonly token: string;
  readonly outcome?: Outcome;
}
