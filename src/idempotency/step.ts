/**
 * Pipeline step 5b, idempotent sends (src/pipeline/pipeline.ts; docs/fleet.md "Idempotent
 * sends"): for an agent with `idempotency.enabled`, a covered SendMessage (key.ts) claims its key.
 * The first goes on to the agent, followed to its outcome (first-send.ts); a duplicate with the
 * same body waits for the first's outcome (at most `wait`) and gets it back from the binding
 * (replay.ts) without reaching the agent. Refusals are GatewayErrors, answered in the caller's
 * protocol by step 8: another body under the key (422), a key too long (400), the first still
 * pending after `wait` (409), the store down with `failClosed` (503).
 */
import type { Exchange } from '../exchange/exchange.js';
import type { IdempotencyFacts } from '../exchange/record.js';
import { GatewayError } from '../errors/gateway-error.js';
import { fingerprintOf, IDEMPOTENCY_KEY_HEADER, sendKeyOf } from './key.js';
import { FirstSend } from './first-send.js';
import { markFirstSend } from './tap.js';
import { IdempotencyUnavailable, type Claim, type IdempotencyStore, type Outcome } from './store.js';

/** What the step reads of the body (src/pipeline/request-body.ts RequestBody; the pipeline imports this folder, not the reverse). */
export interface ReadBody {
  /** The body was read whole (a larger one streams on and is not covered). */
  readonly complete: boolean;
  readonly prefix: Buffer;
}

export interface IdempotentSends {
  /** The first send's outcome to answer this call with, or undefined: the call goes on to the agent. */
  check(exchange: Exchange, clientAddress: string, body: ReadBody): Promise<Outcome | undefined>;
}

export function idempotentSends(store: IdempotencyStore): IdempotentSends {
  return {
    async check(exchange, clientAddress, body) {
      const policy = exchange.upstream.config.idempotency;
      const facts = exchange.request;
      const sendKey = sendKeyOf({
        agent: exchange.upstream.name,
        facts,
        header: exchange.call.headers[IDEMPOTENCY_KEY_HEADER],
        principal: exchange.record.access?.principal,
        clientAddress,
        maxKeyLength: policy.maxKeyLength,
      });
      if (!sendKey.covered || !facts || !body.complete) return undefined;
      const source = sendKey.refused === undefined ? sendKey.source : 'idempotency-key';
      const noted = (outcome: IdempotencyFacts['outcome']) => (exchange.record.idempotency = { outcome, source });
      if (sendKey.refused !== undefined) {
        noted('refused');
        throw new GatewayError('REQUEST_INVALID', sendKey.refused, { agent: exchange.upstream.name });
      }
      const fingerprint = fingerprintOf(facts, facts.document ?? parseJson(facts.binding, body.prefix), body.prefix);
      let claim: Claim;
      let waited: boolean;
      try {
        ({ claim, waited } = await claimOrWait(store, sendKey.key, fingerprint, policy));
      } catch (err) {
        if (!(err instanceof IdempotencyUnavailable)) throw err;
        noted('unavailable');
        if (!policy.failClosed) return undefined;
        throw new GatewayError('STATE_UNAVAILABLE', 'the idempotency store cannot answer; retry later', {
          agent: exchange.upstream.name,
        });
      }
      if (claim.state === 'first') {
        noted('first');
        const { window: windowMs, maxMessageBytes } = policy;
        const first = new FirstSend({
          store,
          key: sendKey.key,
          token: claim.token,
          fingerprint,
          windowMs,
          maxMessageBytes,
        });
        markFirstSend(exchange, first);
        return undefined;
      }
      if (claim.fingerprint !== fingerprint) {
        noted('refused');
        throw refusal(exchange, 'IDEMPOTENCY_KEY_REUSED', 'this idempotency key was used for another message');
      }
      if (claim.state === 'pending') {
        noted('refused');
        throw refusal(exchange, 'IDEMPOTENCY_IN_PROGRESS', 'a send with this idempotency key is still in progress');
      }
      noted(waited ? 'waited' : 'replayed');
      return claim.outcome;
    },
  };
}

/**
 * Claims the key; while another send holds it without an outcome, waits for that to change (at
 * most `wait` in all) and claims again — a released key makes this send the first.
 */
async function claimOrWait(
  store: IdempotencyStore,
  key: string,
  fingerprint: string,
  policy: { readonly window: number; readonly wait: number },
): Promise<{ claim: Claim; waited: boolean }> {
  const until = Date.now() + policy.wait;
  for (let attempt = 0; ; attempt++) {
    const claim = await store.claim(key, fingerprint, policy.window);
    const left = until - Date.now();
    if (claim.state !== 'pending' || claim.fingerprint !== fingerprint || left <= 0)
      return { claim, waited: attempt > 0 };
    await store.changed(key, left, attempt);
  }
}

function refusal(
  exchange: Exchange,
  reason: 'IDEMPOTENCY_KEY_REUSED' | 'IDEMPOTENCY_IN_PROGRESS',
  message: string,
): GatewayError {
  return new GatewayError(reason, message, { agent: exchange.upstream.name });
}

/** A JSON body the classifier did not keep parsed (larger than its parse buffer). */
function parseJson(binding: string, bytes: Buffer): unknown {
  if (binding === 'grpc') return undefined;
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}
