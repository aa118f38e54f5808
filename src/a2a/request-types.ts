/**
 * The request decoders' contract (src/a2a/request.ts for JSON-RPC and HTTP+JSON,
 * src/a2a/grpc/request.ts for gRPC): what they read and the one classification they yield.
 */
import type { JsonBodyStatus } from '../codec/json-body.js';
import type { Finding } from './findings.js';
import type { Binding, Operation, ProtocolVersion } from './operations.js';
import type { VersionSignal } from './version.js';

export interface RequestHead {
  readonly method: string;
  /** Path after the gateway's `/agents/{name}` prefix, without the query. */
  readonly path: string;
  /** Query string, with or without the leading `?`. */
  readonly query: string;
  /** Header names lower-cased. */
  readonly headers: Readonly<Record<string, string | undefined>>;
}

export interface RequestDecoderOptions {
  /** Inspection cap: body bytes read, and the most held in memory at once. */
  readonly maxBytes: number;
  /** REST interface base paths of the agent (from its card), to recognise a `/{tenant}` segment. */
  readonly restBasePaths?: readonly string[];
  /** Tuning: bodies up to this size are parsed whole, bigger ones scanned (default 16 KiB). */
  readonly parseBufferBytes?: number;
}

export interface RequestFacts {
  /** `unknown` when neither a JSON-RPC body nor a REST route was recognised. */
  readonly binding: Binding | 'unknown';
  readonly version: ProtocolVersion;
  /**
   * The version the body is written in, which is how the agent reads it: the JSON-RPC method
   * name's, the REST route's (`/v1/` is 0.3), the gRPC rpc's package (wire-reference §6.1, §6.2);
   * `version` when none of these says. `blocking` is read in it. It differs from `version` when
   * the `A2A-Version` header and the body disagree (finding `a2a.version-signals-disagree`).
   */
  readonly wireVersion: ProtocolVersion;
  /** Which signal decided `version`. */
  readonly versionSignal: VersionSignal;
  /** Raw `A2A-Version` header, when sent. */
  readonly versionHeader?: string;
  readonly operation: Operation;
  /** The operation answers with an SSE stream. */
  readonly streaming: boolean;
  readonly jsonrpcMethod?: string;
  /** JSON-RPC `id`; meaningful when `jsonrpcIdPresent` is true. */
  readonly jsonrpcId?: string | number | null;
  /** `false` for a notification (no `id`), `undefined` when the body was not read that far. */
  readonly jsonrpcIdPresent?: boolean;
  /** The body is a JSON array posted where JSON-RPC goes (no REST route): a JSON-RPC batch, which
   * A2A does not define; the pipeline refuses it (issue #29). */
  readonly jsonrpcBatch?: boolean;
  readonly tenant?: string;
  /** The caller used `application/a2a+json` (content-type.ts `usesA2AJson`): the gateway's own
   * answers to it are written in that media type. */
  readonly a2aJson?: boolean;
  /** REST: path before the route (interface base path and tenant segment). */
  readonly restPrefix?: string;
  readonly taskId?: string;
  readonly contextId?: string;
  readonly messageId?: string;
  readonly pushConfigId?: string;
  /** SendMessage only: waits for a terminal or interrupted state (§3.2.2), read in `wireVersion`. */
  readonly blocking?: boolean;
  readonly historyLength?: number;
  /** Webhook URL of a push-notification config carried by the request. */
  readonly pushUrl?: string;
  /** Every push webhook URL the request carries, in any spelling an agent may read (access control). */
  readonly pushUrls?: readonly string[];
  /** Every task id the request names, in any spelling or place an agent may read (task ownership). */
  readonly taskIds?: readonly string[];
  /** The contexts a message names, in either spelling (context ownership). */
  readonly contextIds?: readonly string[];
  /** ListTasks: every non-empty page token the request carries, in any spelling or place an agent
   * may read one (`pageToken`, `page_token`; several are refused under task ownership, page-tokens.ts). */
  readonly pageTokens?: readonly string[];
  readonly body: JsonBodyStatus;
  /** The whole body as `JSON.parse` returned it, when it was read that way (bodies up to
   * `parseBufferBytes`): the timeout rescue reuses it instead of parsing the body again. */
  readonly document?: unknown;
  readonly bodyBytes: number;
  /** The body went past `maxBytes` before it was read whole; absent facts may exist. */
  readonly partial: boolean;
  /** The body is not valid JSON. */
  readonly malformed: boolean;
  readonly findings: readonly Finding[];
}

export interface RequestDecoder {
  push(chunk: Uint8Array): void;
  end(opts?: { aborted?: boolean }): RequestFacts;
  /** Body bytes held right now; stays within `maxBytes`. */
  readonly heldBytes: number;
}
