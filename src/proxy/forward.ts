/**
 * Sends one exchange to its agent and relays the answer as it arrives: headers when they come,
 * each body chunk written the moment undici hands it over (SSE events are never held back),
 * backpressure from the client paused onto the upstream socket. The response body is passed on
 * byte for byte; only an explicit rewrite (agent cards) may replace it.
 */
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { Exchange } from '../exchange/exchange.js';
import { clientResponseHeaders } from '../transport/headers.js';
import { GatewayError, upstreamFailure } from '../transport/errors.js';
import type { ErrorContext } from './error-response.js';
import { sendGatewayError, sseErrorEvent } from './error-response.js';

/** Replaces a whole (small) response body, e.g. a card whose URLs must point at the gateway. */
export interface BodyRewrite {
  /** Largest body it will buffer; a bigger one is passed through unchanged. */
  readonly maxBytes: number;
  apply(body: Buffer, headers: string[]): { body: Buffer; headers: string[] };
}

export interface ForwardRequest {
  readonly method: Dispatcher.HttpMethod;
  readonly headers: string[];
  readonly body: Buffer | Readable | null;
  /** How to answer the caller in its own protocol if the gateway must produce an error. */
  readonly errorContext: ErrorContext;
  /** Quiet time after which an SSE comment is written between events (0: never). */
  readonly keepaliveMs: number;
  /** Chosen when the response starts (status and headers known). */
  rewriteFor?(status: number, headers: Record<string, string | string[] | undefined>): BodyRewrite | undefined;
}

class ClientGone extends Error {
  constructor() {
    super('client went away');
    this.name = 'ClientGone';
  }
}

function isEventStream(headers: Record<string, string | string[] | undefined>): boolean {
  const type = headers['content-type'];
  return typeof type === 'string' && type.startsWith('text/event-stream');
}

/** An SSE comment line (W3C: lines starting with ':' are ignored) followed by a blank line, which
 * dispatches nothing because no data was buffered: clients and proxies see traffic, parsers see
 * no event. Field notes item 4: idle timeouts drop quiet but healthy streams. */
const KEEPALIVE = Buffer.from(': keepalive\n\n');

/** True when the bytes sent so far end between two SSE events (W3C: a blank line ends an event). */
function atEventBoundary(last: Buffer | undefined): boolean {
  if (!last) return true;
  const n = last.length;
  const a = last[n - 1];
  const b = last[n - 2];
  return (a === 0x0a && (b === 0x0a || (b === 0x0d && last[n - 3] === 0x0a))) || (a === 0x0d && b === 0x0d);
}

export function forward(exchange: Exchange, request: ForwardRequest): Promise<void> {
  const { res, upstream, record } = exchange;
  return new Promise<void>((resolve) => {
    let controller: Dispatcher.DispatchController | undefined;
    let rewrite: BodyRewrite | undefined;
    let rewriteHeaders: string[] = [];
    let buffered: Buffer[] = [];
    let bufferedSize = 0;
    let status = 0;
    let eventStream = false;
    let lastChunk: Buffer | undefined;
    let keepalive: NodeJS.Timeout | undefined;
    let done = false;

    const finish = () => {
      if (done) return;
      done = true;
      if (keepalive) clearInterval(keepalive);
      res.off('close', onClientClose);
      exchange.finish();
      resolve();
    };
    const onClientClose = () => {
      if (res.writableFinished) return;
      exchange.fail('client-gone', new ClientGone());
      controller?.abort(new ClientGone());
      finish();
    };
    res.on('close', onClientClose);
    exchange.terminate = () => {
      if (done) return;
      exchange.fail('gateway-error', new GatewayError('SHUTTING_DOWN', 'the gateway is shutting down'));
      controller?.abort(new ClientGone());
      // A stream cut between two events ends cleanly; anywhere else the cut must be visible.
      if (res.headersSent && eventStream && atEventBoundary(lastChunk)) res.end();
      else res.destroy();
      finish();
    };

    const flushRewriteUnchanged = () => {
      res.writeHead(status, rewriteHeaders);
      for (const chunk of buffered) res.write(chunk);
      rewrite = undefined;
      buffered = [];
    };

    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(ctrl) {
        controller = ctrl;
        if (done) ctrl.abort(new ClientGone());
      },
      onResponseStart(_ctrl, statusCode, headers) {
        if (statusCode < 200) return; // 1xx: Node answers Expect itself; nothing to relay.
        status = statusCode;
        record.status = statusCode;
        eventStream = isEventStream(headers);
        const out = clientResponseHeaders(headers);
        // Tell any buffering proxy in front of us to stream (field notes item 4).
        if (eventStream && headers['x-accel-buffering'] === undefined) out.push('x-accel-buffering', 'no');
        exchange.emit('onResponseStart', statusCode, headers);
        rewrite = request.rewriteFor?.(statusCode, headers);
        if (rewrite) {
          rewriteHeaders = out;
          return;
        }
        res.writeHead(statusCode, out);
        if (eventStream && request.keepaliveMs > 0) {
          keepalive = setInterval(() => {
            // Only between two events: a comment inside an event would end it early.
            if (!atEventBoundary(lastChunk) || res.writableEnded) return;
            res.write(KEEPALIVE);
            record.keepalivesSent++;
          }, request.keepaliveMs);
          keepalive.unref();
        }
      },
      onResponseData(ctrl, chunk) {
        record.bytesOut += chunk.length;
        exchange.emit('onResponseChunk', chunk);
        if (rewrite) {
          buffered.push(chunk);
          bufferedSize += chunk.length;
          if (bufferedSize > rewrite.maxBytes) flushRewriteUnchanged();
          return;
        }
        lastChunk = chunk;
        keepalive?.refresh(); // quiet time counts from the agent's last bytes
        if (!res.write(chunk)) {
          ctrl.pause();
          res.once('drain', () => ctrl.resume());
        }
      },
      onResponseEnd() {
        if (rewrite) {
          const { body, headers } = rewrite.apply(Buffer.concat(buffered, bufferedSize), rewriteHeaders);
          res.writeHead(status, headers);
          res.end(body);
        } else {
          res.end();
        }
        finish();
      },
      onResponseError(_ctrl, err) {
        if (done || err instanceof ClientGone) return finish();
        const failure = upstreamFailure(err, upstream.name);
        exchange.fail('upstream-error', failure);
        if (!res.headersSent) {
          sendGatewayError(res, failure, request.errorContext);
        } else if (eventStream && atEventBoundary(lastChunk)) {
          // The stream already carries events: end it with an error event in the caller's
          // protocol (wire-reference §1.1 / §1.2 de-facto mid-stream error shapes).
          res.end(sseErrorEvent(failure, request.errorContext));
        } else {
          // Mid-body with no clean place to add anything: cut the connection so the client
          // sees a truncated response rather than a falsely complete one.
          res.destroy(failure);
        }
        finish();
      },
    };

    try {
      upstream.pool.dispatch(
        {
          path: exchange.upstreamPath,
          method: request.method,
          headers: request.headers,
          body: request.body,
        },
        handler,
      );
    } catch (err) {
      const failure = err instanceof GatewayError ? err : upstreamFailure(err, upstream.name);
      exchange.fail('gateway-error', failure);
      sendGatewayError(res, failure, request.errorContext);
      finish();
    }
  });
}
