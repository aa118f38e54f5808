/**
 * Reads the start of a request body before it is forwarded. A2A requests are small JSON
 * documents, so almost always the whole body fits under the cap: the gateway then knows the
 * operation and JSON-RPC id before it talks to the agent (needed for errors in the caller's
 * protocol and for the timeout rescue) and sends one buffer upstream. A body larger than the cap
 * (an inline file part) is streamed: the prefix first, then the rest as it arrives.
 *
 * Both phases enforce the client limits (principle 19): a body larger than `maxBytes` fails with
 * BODY_TOO_LARGE (413) as soon as it gets there (one that declares more, once its start is read), and a body that goes quiet for `idleMs` fails with
 * REQUEST_TIMEOUT (408). While streaming, the failure reaches undici, which stops the upstream
 * request; the forwarder answers it.
 */
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { GatewayError } from '../errors/gateway-error.js';

/** Bytes of an HTTP request body read before forwarding; larger bodies stream past it. */
export const REQUEST_PREFIX_BYTES = 64 * 1024;

export interface RequestBody {
  /** The bytes read so far (the whole body when `complete`). */
  readonly prefix: Buffer;
  readonly complete: boolean;
  /** What to hand to the upstream client: a buffer, a stream of the rest, or nothing. */
  readonly forward: Buffer | Readable | null;
}

export interface BodyLimits {
  /** Most body bytes accepted. */
  readonly maxBytes: number;
  /** Longest silence between two chunks (0: none). */
  readonly idleMs: number;
}

const EMPTY: RequestBody = { prefix: Buffer.alloc(0), complete: true, forward: null };
/** Refusals of a body the client is still sending end the connection: the rest is not read. */
const CLOSE = { headers: { connection: 'close' } };

function bodyTooLarge(maxBytes: number): GatewayError {
  return new GatewayError('BODY_TOO_LARGE', `the request body is larger than ${maxBytes} bytes`, {}, CLOSE);
}

function bodyIdle(idleMs: number): GatewayError {
  return new GatewayError('REQUEST_TIMEOUT', `the request body was silent for ${idleMs} ms`, {}, CLOSE);
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  if (length !== undefined) return length !== '0';
  return req.headers['transfer-encoding'] !== undefined;
}

/** The refusals a body watch makes (each binding words its own: gRPC speaks of the message). */
export interface BodyRefusals {
  tooLarge(maxBytes: number): GatewayError;
  idle(idleMs: number): GatewayError;
}

const HTTP_REFUSALS: BodyRefusals = { tooLarge: bodyTooLarge, idle: bodyIdle };

/** Counts the body and watches its silences; calls `fail` once past a limit. */
export class BodyWatch {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly limits: BodyLimits,
    private readonly fail: (err: GatewayError) => void,
    /** Bytes counted so far (a streamed rest goes on from its prefix). */
    public bytes = 0,
    private readonly refusals: BodyRefusals = HTTP_REFUSALS,
  ) {
    if (limits.idleMs > 0) {
      this.timer = setTimeout(() => this.fail(refusals.idle(limits.idleMs)), limits.idleMs);
      this.timer.unref();
    }
  }

  /** Adds a chunk; false (after calling `fail`) once the body is over its limit. */
  add(chunk: Buffer): boolean {
    this.bytes += chunk.length;
    this.timer?.refresh();
    if (this.bytes <= this.limits.maxBytes) return true;
    this.fail(this.refusals.tooLarge(this.limits.maxBytes));
    return false;
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
  }
}

/**
 * The prefix, then the rest of the body as the client sends it, with the client's pace passed on
 * (paused while undici's buffer is full). A limit ends this stream with its error and leaves the
 * client's socket alone, so the refusal can still be answered.
 */
class BodyRest extends Readable {
  private watch: BodyWatch | undefined;

  constructor(
    private readonly prefix: Buffer,
    private readonly req: IncomingMessage,
    private readonly onChunk: (chunk: Buffer) => void,
    private readonly limits: BodyLimits,
  ) {
    super();
  }

  /** The client's body is read (and its silences timed) only once the agent's side asks for it. */
  override _read(): void {
    if (!this.watch) {
      this.watch = new BodyWatch(this.limits, (err) => this.fail(err), this.prefix.length);
      this.req.on('data', this.onData);
      this.req.on('end', this.onEnd);
      this.req.on('error', this.onError);
      this.push(this.prefix);
    }
    this.req.resume();
  }

  private readonly onData = (chunk: Buffer): void => {
    if (!this.watch!.add(chunk)) return;
    this.onChunk(chunk);
    if (!this.push(chunk)) this.req.pause();
  };

  private readonly onEnd = (): void => {
    this.cleanup();
    this.push(null);
  };

  private readonly onError = (err: Error): void => this.fail(err);

  private fail(err: Error): void {
    this.cleanup();
    this.req.pause();
    this.destroy(err);
  }

  private cleanup(): void {
    this.watch?.stop();
    this.req.off('data', this.onData);
    this.req.off('end', this.onEnd);
    this.req.off('error', this.onError);
  }
}

/** How long a body declared over the limit is waited for before it is refused anyway. */
const DECLARED_TOO_LARGE_WAIT_MS = 1000;

/**
 * A body that declares more than the limit is refused (413) without forwarding any of it — after
 * its start is read, so the refusal can be in the caller's protocol, but never waiting long for a
 * client that declared it and then sends nothing.
 */
function refuseDeclaredTooLarge(
  req: IncomingMessage,
  cap: number,
  onChunk: (chunk: Buffer) => void,
  limits: BodyLimits,
): Promise<never> {
  return new Promise((_resolve, reject) => {
    let size = 0;
    const cleanup = () => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', refuse);
      req.off('error', onError);
    };
    const refuse = () => {
      cleanup();
      req.pause();
      reject(bodyTooLarge(limits.maxBytes));
    };
    const onData = (chunk: Buffer) => {
      onChunk(chunk);
      size += chunk.length;
      if (size > cap) refuse();
    };
    const onError = (err: Error) => {
      cleanup();
      reject(err);
    };
    const timer = setTimeout(refuse, Math.min(limits.idleMs || Infinity, DECLARED_TOO_LARGE_WAIT_MS));
    req.on('data', onData);
    req.on('end', refuse);
    req.on('error', onError);
  });
}

/** Reads up to `cap` bytes; `onChunk` sees every chunk of the body, including those streamed later. */
export function readRequestBody(
  req: IncomingMessage,
  cap: number,
  onChunk: (chunk: Buffer) => void,
  limits: BodyLimits,
): Promise<RequestBody> {
  if (!hasBody(req)) return Promise.resolve(EMPTY);
  if (Number(req.headers['content-length']) > limits.maxBytes) return refuseDeclaredTooLarge(req, cap, onChunk, limits);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const cleanup = () => {
      watch.stop();
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const watch = new BodyWatch(limits, (err) => {
      cleanup();
      req.pause();
      reject(err);
    });
    const onData = (chunk: Buffer) => {
      if (!watch.add(chunk)) return;
      onChunk(chunk);
      chunks.push(chunk);
      if (watch.bytes > cap) {
        req.pause();
        cleanup();
        const prefix = Buffer.concat(chunks, watch.bytes);
        resolve({ prefix, complete: false, forward: new BodyRest(prefix, req, onChunk, limits) });
      }
    };
    const onEnd = () => {
      cleanup();
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, watch.bytes);
      resolve({ prefix: body, complete: true, forward: body });
    };
    const onError = (err: Error) => {
      cleanup();
      reject(err);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}
