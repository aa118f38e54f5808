/**
 * Opening and closing a listener. The gateway has two (traffic and admin); a failure to listen
 * names the config key it came from, so the CLI can say which address could not be taken.
 */
import type { Server } from 'node:http';
import type { AddressInfo, Server as NetServer } from 'node:net';

export interface ListenAt {
  readonly host: string;
  readonly port: number;
}

/** `listen` or `admin.listen`: the config key whose address could not be taken. */
export class ListenError extends Error {
  constructor(
    readonly key: string,
    readonly at: ListenAt,
    readonly code: string | undefined,
    options: { cause: unknown },
  ) {
    super(`cannot listen on ${at.host}:${at.port} (${key}): ${code ?? String(options.cause)}`, options);
    this.name = 'ListenError';
  }
}

/** Listens and resolves with `http://host:port` as bound (the real port when 0 was asked for). */
export async function listenAt(server: NetServer, at: ListenAt, key: string): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    const failed = (err: NodeJS.ErrnoException) => reject(new ListenError(key, at, err.code, { cause: err }));
    server.once('error', failed);
    server.listen(at.port, at.host, () => {
      server.off('error', failed);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

/** Stops accepting and ends every connection, idle or not; resolves once the server is closed. */
export function closeNow(server: Server): Promise<void> {
  if (!server.listening) return Promise.resolve();
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
  return closed;
}
