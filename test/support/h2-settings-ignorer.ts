/**
 * A client that ignores the server's HTTP/2 SETTINGS, made of Node's own http2 client (its HPACK
 * encoder, its HEADERS + CONTINUATION split) and this TCP relay in front of the server, which
 * drops every SETTINGS frame with the ACK flag the client sends. RFC 9113 §6.5.3 has a peer
 * acknowledge SETTINGS at once, and until it has, the sender cannot rely on them: Node enforces
 * its advertised SETTINGS_MAX_HEADER_LIST_SIZE only once acknowledged, so through this relay a
 * header list of any size reaches the server's application (issue #29 item 6). Frames are
 * otherwise relayed byte for byte; the types the client sent are recorded.
 */
import { connect, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

const PREFACE_BYTES = 24; // "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" (RFC 9113 §3.4)
const FRAME_HEADER_BYTES = 9; // length (3), type, flags, stream id (4) (RFC 9113 §4.1)
const SETTINGS = 0x4;
const ACK = 0x1;

export interface SettingsIgnorer {
  readonly url: string;
  /** The frame types the clients sent, in order (0x1 HEADERS, 0x9 CONTINUATION, …). */
  readonly clientFrames: number[];
  close(): Promise<void>;
}

/** A relay to 127.0.0.1:`port` that never lets the client's SETTINGS ACK through. */
export async function settingsIgnorer(port: number): Promise<SettingsIgnorer> {
  const clientFrames: number[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => {});
      s.once('close', () => (sockets.delete(s), client.destroy(), upstream.destroy()));
    }
    client.on(
      'data',
      clientToServer(clientFrames, (bytes) => upstream.write(bytes)),
    );
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return { url, clientFrames, close };
}

/** Splits the client's bytes into the preface and whole frames, passing all but SETTINGS ACKs. */
function clientToServer(types: number[], write: (bytes: Buffer) => void): (chunk: Buffer) => void {
  let pending = Buffer.alloc(0);
  let preface = PREFACE_BYTES;
  return (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    if (preface > 0) {
      const n = Math.min(preface, pending.length);
      write(pending.subarray(0, n));
      pending = pending.subarray(n);
      preface -= n;
    }
    while (pending.length >= FRAME_HEADER_BYTES) {
      const end = FRAME_HEADER_BYTES + pending.readUIntBE(0, 3);
      if (pending.length < end) break;
      const frame = pending.subarray(0, end);
      pending = pending.subarray(end);
      types.push(frame[3]!);
      if (frame[3] !== SETTINGS || (frame[4]! & ACK) === 0) write(frame);
    }
  };
}
