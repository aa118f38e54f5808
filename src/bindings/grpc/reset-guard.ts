/**
 * HTTP/2 rapid reset (CVE-2023-44487): a client that opens streams and resets them at once makes
 * the gateway start calls nobody waits for. A stream counts as reset prematurely when it closes
 * within `PREMATURE_MS` of opening without the gateway having started its answer (Envoy's
 * definition: `overload.premature_reset_min_stream_lifetime_seconds`, a stream without a response
 * code). Per connection: past `limits.grpc.prematureResets` such streams, when they are at least
 * half of the connection's streams (Envoy's ratio), the connection gets GOAWAY
 * (ENHANCE_YOUR_CALM) and is closed. Per client address, across its connections and the gRPC
 * listeners: past `limits.grpc.prematureResetsPerClient` in `WINDOW_MS`, its connections are
 * closed at their next stream and new ones refused as they arrive, for `WINDOW_MS`. Memory is
 * bounded: only an address that resets is remembered, at most `MAX_CLIENTS` of them (the oldest
 * forgotten first). Node's own nghttp2 limit (a GOAWAY after a burst of about 1,000 resets)
 * stays as the outer bound.
 */
import { constants, type ServerHttp2Session, type ServerHttp2Stream } from 'node:http2';
import { normalizeAddress } from '../../transport/peer.js';

/** A stream reset this soon after it opened, before its answer started, is premature. */
export const PREMATURE_MS = 1000;
/** The per-client window: resets counted over it, and how long a client past its budget is refused. */
export const WINDOW_MS = 10_000;
/** Client addresses remembered at most (each one a few dozen bytes). */
export const MAX_CLIENTS = 10_000;

interface ClientResets {
  count: number;
  /** Epoch ms the count started. */
  since: number;
  /** Epoch ms until which the client is refused (0: it is not). */
  refusedUntil: number;
}

/** Premature resets per client address across connections (0: no per-client budget). */
export class ClientResetBudget {
  private readonly clients = new Map<string, ClientResets>();

  constructor(
    private readonly budget: number,
    private readonly windowMs = WINDOW_MS,
    private readonly maxClients = MAX_CLIENTS,
  ) {}

  get enabled(): boolean {
    return this.budget > 0;
  }

  /** Counts one premature reset of `address`; true once it is past its budget. */
  charge(address: string, now = Date.now()): boolean {
    if (this.budget <= 0) return false;
    let entry = this.clients.get(address);
    if (entry && now - entry.since > this.windowMs && entry.refusedUntil <= now) {
      this.clients.delete(address);
      entry = undefined;
    }
    if (!entry) {
      if (this.clients.size >= this.maxClients) this.evict(now);
      entry = { count: 0, since: now, refusedUntil: 0 };
      this.clients.set(address, entry);
    }
    entry.count++;
    if (entry.count > this.budget) entry.refusedUntil = now + this.windowMs;
    return entry.refusedUntil > now;
  }

  /** The client is past its budget: its connections and streams are refused. */
  refused(address: string, now = Date.now()): boolean {
    if (this.clients.size === 0) return false;
    const entry = this.clients.get(address);
    if (!entry || entry.refusedUntil === 0) return false;
    if (entry.refusedUntil > now) return true;
    this.clients.delete(address);
    return false;
  }

  get size(): number {
    return this.clients.size;
  }

  /** Forgets the expired entries, else the oldest one. */
  private evict(now: number): void {
    for (const [address, entry] of this.clients) {
      if (now - entry.since > this.windowMs && entry.refusedUntil <= now) this.clients.delete(address);
    }
    if (this.clients.size < this.maxClients) return;
    const oldest = this.clients.keys().next();
    if (!oldest.done) this.clients.delete(oldest.value);
  }
}

/**
 * GOAWAY with ENHANCE_YOUR_CALM (nghttp2 ignores streams after `lastId` from then on), and the
 * connection closed with its streams once the frame is on its way (a destroy at once would lose it).
 */
function calmDown(session: ServerHttp2Session, lastId: number, open: ReadonlySet<ServerHttp2Stream>): void {
  if (session.destroyed || session.closed) return;
  const code = constants.NGHTTP2_ENHANCE_YOUR_CALM;
  session.goaway(code, lastId);
  // The streams still open are reset now; the socket closes once they have.
  session.close();
  setImmediate(() => {
    for (const stream of open) if (!stream.destroyed) stream.close(constants.NGHTTP2_CANCEL);
  });
}

/**
 * Watches one connection's streams for premature resets: `cap` per connection (0: off), and the
 * client's budget across connections.
 */
export function watchResets(session: ServerHttp2Session, cap: number, clients: ClientResetBudget): void {
  if (cap <= 0 && !clients.enabled) return;
  const address = normalizeAddress(session.socket?.remoteAddress);
  let closed = 0;
  let premature = 0;
  let lastId = 0;
  const open = new Set<ServerHttp2Stream>();
  session.on('stream', (stream: ServerHttp2Stream) => {
    if (clients.enabled && clients.refused(address)) return calmDown(session, lastId, open);
    lastId = stream.id ?? lastId;
    const opened = Date.now();
    open.add(stream);
    stream.once('close', () => {
      open.delete(stream);
      closed++;
      if (stream.headersSent || session.destroyed || session.closed || Date.now() - opened > PREMATURE_MS) return;
      premature++;
      const overClient = clients.charge(address);
      if (overClient || (cap > 0 && premature > cap && premature * 2 >= closed)) calmDown(session, lastId, open);
    });
  });
}
