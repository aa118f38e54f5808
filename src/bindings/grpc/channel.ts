/**
 * HTTP/2 connections to one agent's gRPC interface. gRPC multiplexes every call of a client
 * over one connection, so a "pool" is a few sessions used in turn (`agents.{name}.grpc.connections`)
 * rather than a connection per call; a session that closes, fails or is sent GOAWAY is replaced
 * on the next call. node:http2 is used directly (not undici's HTTP/2 client): the gateway must send
 * `te: trailers` and relay the agent's trailers byte for byte, both of which node:http2 exposes as
 * they are on the wire.
 */
import { connect, type ClientHttp2Session, type ClientHttp2Stream, type OutgoingHttpHeaders } from 'node:http2';

export interface ChannelOptions {
  /** `http://host:port` (cleartext HTTP/2, "h2c") or `https://host:port` (TLS, ALPN h2). */
  readonly origin: string;
  readonly connections: number;
  /** TCP/TLS connect to the agent (`timeouts.connect`; 0: none). */
  readonly connectTimeoutMs: number;
}

export class GrpcChannel {
  private readonly sessions: (ClientHttp2Session | undefined)[];
  private turn = 0;
  private closed = false;

  constructor(private readonly options: ChannelOptions) {
    this.sessions = new Array<ClientHttp2Session | undefined>(options.connections).fill(undefined);
  }

  get origin(): string {
    return this.options.origin;
  }

  /** Opens a call on the next session in turn (connecting it if it is not up). */
  request(headers: OutgoingHttpHeaders): ClientHttp2Stream {
    if (this.closed) throw Object.assign(new Error('gRPC channel closed'), { code: 'ERR_HTTP2_INVALID_SESSION' });
    const slot = this.turn;
    this.turn = (this.turn + 1) % this.sessions.length;
    return this.session(slot).request(headers, { endStream: false });
  }

  /** Closes every session once its streams are done (a retired config generation). */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.sessions.map((s) => s && !s.closed && new Promise<void>((done) => s.close(() => done()))));
  }

  private session(slot: number): ClientHttp2Session {
    const current = this.sessions[slot];
    if (current && !current.closed && !current.destroyed) return current;
    const session = connect(this.options.origin, { settings: { enablePush: false } });
    const drop = () => {
      if (this.sessions[slot] === session) this.sessions[slot] = undefined;
    };
    session.on('close', drop);
    session.on('goaway', drop);
    // Errors reach each open stream; the session's own error only needs to retire it.
    session.on('error', drop);
    session.unref();
    this.watchConnect(session);
    this.sessions[slot] = session;
    return session;
  }

  private watchConnect(session: ClientHttp2Session): void {
    const ms = this.options.connectTimeoutMs;
    if (ms <= 0) return;
    const timer = setTimeout(() => {
      const err = Object.assign(new Error(`connect to ${this.options.origin} timed out after ${ms} ms`), {
        code: 'ETIMEDOUT',
      });
      session.destroy(err);
    }, ms);
    timer.unref();
    session.once('connect', () => clearTimeout(timer));
    session.once('close', () => clearTimeout(timer));
  }
}

/**
 * What made a stream to the agent fail. Node cancels the streams pending on a session that fails
 * to connect with ERR_HTTP2_STREAM_CANCEL, the connect error as its `cause`: the cause
 * (ECONNREFUSED, …) is what happened to the call (UPSTREAM_UNREACHABLE, not a reset).
 */
export function streamFailureCause(err: unknown): unknown {
  const { code, cause } = (err ?? {}) as { code?: unknown; cause?: unknown };
  return code === 'ERR_HTTP2_STREAM_CANCEL' && cause !== undefined ? cause : err;
}
