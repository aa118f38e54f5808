/**
 * The gRPC binding of the one pipeline (src/pipeline/binding.ts): calls on the gateway's HTTP/2
 * listeners (listener.ts), relayed on HTTP/2 sessions to the agent's gRPC interface
 * (channel.ts). What is only gRPC's lives here: the head check (a header list within
 * `limits.headerBytes`, header-list.ts; POST, a gRPC content type; refused before the body is
 * read), the one request message read whole (request-body.ts), the metadata with `te: trailers`
 * and the deadline left (step 5), the rescue polling over gRPC (rescue.ts, step 6), the relay
 * with its held rewrites (relay.ts, held-answer.ts, step 7) and every refusal as a gRPC status
 * (src/errors/grpc-answer.ts).
 */
import type { OutgoingHttpHeaders } from 'node:http2';
import type { Upstream } from '../../transport/upstream.js';
import { upstreamRequestHeaders } from '../../transport/headers.js';
import { normalizeAddress } from '../../transport/peer.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { grpcFailureOf, sendGrpcFailure } from '../../errors/grpc-answer.js';
import type { Exchange } from '../../exchange/exchange.js';
import type { ClientLimits } from '../../transport/client-limits.js';
import type { TaskTracker } from '../../tasks/tracker.js';
import type { Admission } from '../../access/gate.js';
import { grpcMethod, grpcPath } from '../../a2a/grpc/methods.js';
import { subscribeToTaskRequest } from '../../a2a/grpc/rescue-wire.js';
import { encodeGrpcFrame } from '../../codec/grpc-frames.js';
import type { RequestBody } from '../../pipeline/request-body.js';
import type { Replica } from '../../transport/replica.js';
import type { Binding, HeadCheck, Prepared, RoutedCall } from '../../pipeline/binding.js';
import { clientLeft } from '../../pipeline/pipeline.js';
import type { GrpcCall, GrpcClientCall } from './call.js';
import { readGrpcBody } from './request-body.js';
import { grpcWithPageToken } from '../../access/page-token-request.js';
import { headerListRefusal } from './header-list.js';
import { relayGrpc } from './relay.js';
import { formatGrpcTimeout, parseGrpcTimeout } from './timeout-header.js';
import type { GrpcAgents } from './agents.js';
import type { GrpcChannel } from './channel.js';
import { rescueGrpcCall } from './rescue.js';
import { replayGrpcCall } from './replay.js';
import { grpcExtendedCardRewrite, type GrpcCardDeps } from './extended-card.js';
import type { HeldRewrite } from './held-answer.js';
import type { ReplayWindows } from '../../resume/window.js';
import { GrpcResumableStream } from '../../resume/grpc-stream.js';
import { ResumableRelay } from './resume-relay.js';
import { resumeGrpcCall } from './resume.js';

export interface GrpcBindingDeps {
  readonly agents: GrpcAgents;
  readonly limits: ClientLimits;
  readonly tracker: TaskTracker;
  /** Where extended cards' interfaces point (extended-card.ts). */
  readonly cards: GrpcCardDeps;
  /** Stream resume's replay windows (src/resume/), made with the state store (src/state/build.ts). */
  readonly windows: ReplayWindows;
}

export interface GrpcPrepared extends Prepared {
  /** Epoch ms of the client's `grpc-timeout`, if it gave one. */
  readonly deadline: number | undefined;
  readonly rewrite: HeldRewrite | undefined;
  /** A stream of an agent with `resume`: named in its headers and kept in its window (resume-relay.ts). */
  readonly resumable: boolean;
}

/** Bytes of the gRPC message prefix (compressed flag, 4-byte length). */
const PREFIX_BYTES = 5;

export function grpcBinding(deps: GrpcBindingDeps): Binding<GrpcClientCall, GrpcPrepared> {
  const maxBytes = (upstream: Upstream) =>
    Math.min(deps.limits.grpc.messageBytes, upstream.config.limits.bodyBytes ?? deps.limits.bodyBytes) + PREFIX_BYTES;
  return {
    refuseUnrouted: (call) => refuseUnrouted(call),
    head: (call) => checkHead(call, deps.limits.headerBytes),
    readAhead: maxBytes,
    readBody: async (call, upstream, onChunk) => {
      const body = await readGrpcBody(
        call.req,
        { maxBytes: maxBytes(upstream), idleMs: deps.limits.bodyIdle },
        onChunk,
      );
      return { prefix: body, complete: true, forward: body };
    },
    prepare: (routed) => prepare(routed, deps),
    resume: (routed, resume, body, replicaOf) =>
      resumeGrpcCall(routed, resume, deps.windows, (taskId) => continueStream(routed, body, taskId, replicaOf, deps)),
    replay: (routed, prepared, body, outcome) =>
      replayGrpcCall({
        call: { req: routed.call.req, res: routed.call.res, exchange: routed.exchange },
        outcome,
        body: body.prefix,
        channel: () => channelOf(routed.exchange, deps),
        headers: (channel, rpcPath, leftMs) => h2Headers(rpcPath, channel, prepared.headers, leftMs),
        deadline: prepared.deadline,
        tracker: deps.tracker,
        maxBytes: deps.limits.grpc.messageBytes,
      }),
    rescue: async (routed, prepared, body, send) => {
      const channel = await channelOf(routed.exchange, deps);
      await rescueGrpcCall({
        call: { req: routed.call.req, res: routed.call.res, exchange: routed.exchange },
        send,
        body: body.prefix,
        channel,
        headers: (rpcPath, leftMs) => h2Headers(rpcPath, channel, prepared.headers, leftMs),
        deadline: prepared.deadline,
        tracker: deps.tracker,
        maxBytes: deps.limits.grpc.messageBytes,
      });
      return true;
    },
    relay: async ({ call, exchange, admission }, prepared, body) => {
      const channel = await channelOf(exchange, deps);
      if (call.closed) throw clientLeft(); // reset while the agent's connection was made: never opened
      const { deadline, rewrite } = prepared;
      const left = deadline === undefined ? undefined : deadline - Date.now();
      const upstream = channel.request(h2Headers(call.target, channel, prepared.headers, left));
      const grpcCall = { req: call.req, res: call.res, exchange };
      const resume = prepared.resumable ? resumableRelay(grpcCall, deps.windows) : undefined;
      const message = withAgentPageToken(body.prefix, admission.agentPageToken);
      return relayGrpc(grpcCall, { upstream, body: message, deadline, rewrite, resume });
    },
    answerUnexpected,
  };
}

/** ListTasks under task ownership: the agent's page token in place of the caller's sealed one
 * (src/access/gate.ts opened it; page-token-request.ts). */
function withAgentPageToken(frame: Buffer, token: string | undefined): Buffer {
  if (token === undefined) return frame;
  // The gate admitted only a message read whole: this cannot fail.
  const swapped = grpcWithPageToken(frame, token);
  if (!swapped) throw new GatewayError('INTERNAL', 'the ListTasks page token could not be replaced');
  return Buffer.from(swapped.buffer, swapped.byteOffset, swapped.byteLength);
}

/** A call the listener could not route: nothing is opened for it. */
function refuseUnrouted(call: GrpcClientCall): void {
  const authority = String(call.headers[':authority'] ?? '').slice(0, 100);
  const failure = new GatewayError(
    'AGENT_NOT_FOUND',
    `no agent is routed for ${JSON.stringify(authority)} on this port`,
  );
  call.req.resume(); // the request message is not needed
  sendGrpcFailure(call.res, grpcFailureOf(failure));
}

/**
 * A header list within `limits.headerBytes` (header-list.ts; `headerBytes` is restart-only,
 * src/reload/restart-only.ts, so this is the number the listener advertises), and gRPC is POST
 * with `application/grpc[+proto|;…]` (gRPC over HTTP/2, "Requests").
 */
function checkHead(call: GrpcClientCall, headerBytes: number): HeadCheck {
  const path = call.target;
  const type = call.headers['content-type'] ?? '';
  const refusal =
    headerListRefusal(call.req.rawHeaders, headerBytes) ??
    (call.method !== 'POST' || !/^application\/grpc([+;].*)?$/.test(type)
      ? new GatewayError('REQUEST_INVALID', 'a gRPC call is a POST with content-type application/grpc')
      : undefined);
  return { path, upstreamPath: path, recordPath: path, refusal, refuseUnread: true };
}

/** Step 5: the metadata, the held rewrite, the deadline and the channel for the call's version. */
function prepare(routed: RoutedCall<GrpcClientCall>, deps: GrpcBindingDeps): GrpcPrepared {
  const { call, exchange, trusted, admission } = routed;
  const rewrite = answerRewrite(routed, deps);
  const resumable = exchange.upstream.config.resume.enabled && isStream(exchange);
  const strip = rewrite || resumable ? readableStrip(admission.stripHeaders) : admission.stripHeaders;
  const headers = agentMetadata(call, exchange, trusted, strip);
  const timeout = parseGrpcTimeout(call.headers['grpc-timeout']);
  const deadline = timeout === undefined ? undefined : exchange.record.startedAt + timeout;
  return { headers, deadline, rewrite, resumable };
}

function isStream(exchange: Exchange): boolean {
  const op = exchange.request?.operation;
  return op === 'SendStreamingMessage' || op === 'SubscribeToTask';
}

/**
 * A resumed stream nobody reads any more goes on with a SubscribeToTask to the task's replica, in
 * the answer the replay started (relay.ts `continuing`): the client's own SubscribeToTask, or one
 * made for a re-sent SendStreamingMessage (rescue-wire.ts). Its messages are relayed, not kept:
 * the answer's headers named the first stream already (docs/fleet.md "Stream resume").
 */
async function continueStream(
  routed: RoutedCall<GrpcClientCall>,
  body: RequestBody,
  taskId: string,
  replicaOf: (taskId: string) => Promise<Replica>,
  deps: GrpcBindingDeps,
): Promise<boolean> {
  const { call, exchange } = routed;
  const version = grpcMethod(call.target)?.version;
  const own = exchange.request?.operation === 'SubscribeToTask';
  const path = own ? call.target : version && grpcPath('SubscribeToTask', version);
  if (!version || !path) return false;
  const message = own ? body.prefix : Buffer.from(encodeGrpcFrame(subscribeToTaskRequest(taskId, version)));
  const prepared = prepare(routed, deps);
  exchange.emit('onForward', prepared.headers);
  const channel = await deps.agents.channelFor(exchange.upstream, await replicaOf(taskId), version);
  const left = prepared.deadline === undefined ? undefined : prepared.deadline - Date.now();
  const upstream = channel.request(h2Headers(path, channel, prepared.headers, left));
  const grpcCall = { req: call.req, res: call.res, exchange };
  await relayGrpc(grpcCall, { upstream, body: message, deadline: prepared.deadline, continuing: true });
  return true;
}

/** Stream resume's part of the relay: the window of this agent's stream, with its caps and grace. */
function resumableRelay(call: GrpcCall, windows: ReplayWindows): ResumableRelay {
  const { name, config } = call.exchange.upstream;
  const { window, grace } = config.resume;
  const limits = { events: window.events, bytes: window.bytes, ttlMs: window.ttl };
  return new ResumableRelay(new GrpcResumableStream(name, windows, limits), grace, call);
}

/**
 * The HTTP/2 sessions to the agent's gRPC interface for the version the call is written in (its
 * rpc's package, `wireVersion`), whatever `a2a-version` says: only that interface reads the
 * message (looked up after `onForward`).
 */
function channelOf(exchange: Exchange, deps: GrpcBindingDeps): Promise<GrpcChannel> {
  return deps.agents.channelFor(exchange.upstream, exchange.replica, exchange.request?.wireVersion ?? '1.0');
}

/** The request's metadata as the agent gets it: the same hygiene as HTTP headers, credentials stripped unless forwarded. */
function agentMetadata(
  call: GrpcClientCall,
  exchange: Exchange,
  trusted: boolean,
  strip: ReadonlySet<string> | undefined,
): string[] {
  const forwardedFor = { peerAddress: normalizeAddress(call.remoteAddress), trusted, proto: 'http' as const };
  const out = upstreamRequestHeaders(call.rawHeaders, forwardedFor, exchange.upstream.extraHeaders, strip);
  // Hop-by-hop in HTTP/1.1, but gRPC requires it end to end (gRPC over HTTP/2, "Requests").
  out.push('te', 'trailers');
  return out;
}

function h2Headers(
  path: string,
  channel: GrpcChannel,
  metadata: readonly string[],
  leftMs?: number,
): OutgoingHttpHeaders {
  const url = new URL(channel.origin);
  const headers: OutgoingHttpHeaders = {
    ':method': 'POST',
    ':path': path,
    ':scheme': url.protocol.slice(0, -1),
    ':authority': url.host,
  };
  for (let i = 0; i < metadata.length; i += 2) {
    const name = metadata[i]!.toLowerCase();
    if (name === 'grpc-timeout') continue;
    const prior = headers[name];
    headers[name] = prior === undefined ? metadata[i + 1]! : `${String(prior)}, ${metadata[i + 1]!}`;
  }
  if (leftMs !== undefined) headers['grpc-timeout'] = formatGrpcTimeout(leftMs);
  return headers;
}

/** The answer held and rewritten (relay.ts): an extended card's URLs, ListTasks under task ownership. */
function answerRewrite(routed: RoutedCall<GrpcClientCall>, deps: GrpcBindingDeps): HeldRewrite | undefined {
  const { call, exchange, admission } = routed;
  // The AgentCard message's version is its rpc's package (methods.ts), whatever `a2a-version` says.
  const version = grpcMethod(call.target)?.version;
  if (exchange.request?.operation === 'GetExtendedAgentCard' && version) {
    const { upstream } = exchange;
    const authority = call.req.headers[':authority'];
    return grpcExtendedCardRewrite(upstream, routed.replica.url, version, authority, deps.cards);
  }
  const filter: Admission['answerFilter'] = admission.answerFilter;
  return filter && { message: filter('grpc'), maxBytes: deps.limits.grpc.messageBytes };
}

/**
 * A held answer, or a resumable stream's window (its first message names the task; a replay has
 * no compression to announce), must be readable: the agent is not offered compression
 * (`grpc-accept-encoding`).
 */
function readableStrip(strip: ReadonlySet<string> | undefined): ReadonlySet<string> {
  return new Set([...(strip ?? []), 'grpc-accept-encoding']);
}

/** Anything thrown before the relay took over: answered as a gRPC status whenever the stream is still there. */
function answerUnexpected(exchange: Exchange, call: GrpcClientCall, err: unknown): void {
  const { res } = call;
  const failure = grpcFailureOf(err, call.target);
  const gone = res.stream.destroyed || res.stream.closed;
  if (err instanceof Error) exchange.fail(gone ? 'client-gone' : 'gateway-error', err);
  const trailers = gone ? undefined : sendGrpcFailure(res, failure);
  if (trailers) exchange.responseTrailers = trailers;
  exchange.finish();
}
