/**
 * The answer rewrites a stage asks of a binding's relay (docs/ARCHITECTURE.md, step 7): declared
 * here, between the stages that make them — access control's ListTasks filter
 * (src/access/list-tasks.ts, list-tasks-grpc.ts), the extended-card rewrite — and the bindings
 * that hold the answer and apply them (src/bindings/http/rewrite-buffer.ts: a JSON body;
 * src/bindings/grpc/held-answer.ts: one protobuf message).
 */
import type { Finding } from '../a2a/findings.js';
import type { GatewayError } from '../errors/gateway-error.js';

export type { Finding };

export type RewriteResult =
  | { body: Buffer; headers: string[]; findings?: readonly Finding[] }
  /** The body must not reach the client as it is, and cannot be rewritten. */
  | { refusal: GatewayError };

/** Replaces a whole (small) response body, e.g. a card whose URLs must point at the gateway. */
export interface BodyRewrite {
  /** Largest body it will buffer; a bigger one is passed through unchanged. */
  readonly maxBytes: number;
  /** Set when the body must not pass unchanged: a larger one is refused with this instead. */
  readonly oversize?: GatewayError;
  /** `findings`: what the rewrite noticed (e.g. a body it left alone because it is not a card).
   * A rewrite that must look something up (the ListTasks filter asks the task store) returns a promise. */
  apply(body: Buffer, headers: string[]): RewriteResult | Promise<RewriteResult>;
}

export type MessageResult =
  | { readonly message: Uint8Array; readonly findings?: readonly Finding[] }
  /** Pass the answer on as the agent sent it. */
  | { readonly asIs: true; readonly findings?: readonly Finding[] }
  /** The answer must not reach the client as it is, and cannot be rewritten. */
  | { readonly refusal: GatewayError };

/** Replaces the one message of a unary answer. */
export interface MessageRewrite {
  /** `message` is the answer's one message (without its prefix); a lookup may make it a promise. */
  apply(message: Uint8Array): MessageResult | Promise<MessageResult>;
  /** The answer is not one plain message (`why`): what to do instead. */
  unreadable(why: string): MessageResult;
}
