// Listening and closing plain node:http servers for the demo agents and the test peers.
// Kept apart from the SDK wiring so both the 1.3.0 and the 0.3.14 hosts share one
// shutdown path: close() alone would wait for keep-alive sockets and open SSE streams.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Starts `handler` on host:port (0 = ephemeral) and resolves once it is listening. */
export function listen(handler: http.RequestListener, host: string, port: number): Promise<http.Server> {
  const server = http.createServer(handler);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

/** The port the server actually bound (useful after listening on port 0). */
export function boundPort(server: http.Server): number {
  return (server.address() as AddressInfo).port;
}

/**
 * Host as it must appear in a URL. A wildcard bind address is not reachable as a
 * destination, so cards advertise loopback instead; IPv6 literals need brackets.
 */
export function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

/** Stops accepting, then drops every socket (idle keep-alive and live SSE) so callers never hang. */
export function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((err) => (err ? reject(err) : resolve()));
    server.closeAllConnections();
  });
}

/** Joins a base path and a sub-path without doubling or losing slashes ("" and "/" mean root). */
export function joinPath(prefix: string, path: string): string {
  const head = prefix.replace(/\/+$/, '');
  const tail = path.startsWith('/') ? path : `/${path}`;
  return head === '' ? tail : (head.startsWith('/') ? head : `/${head}`) + tail;
}
