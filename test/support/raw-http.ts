/** HTTP/1.1 over a bare socket, for tests that must send a request head exactly as written (no
 * client library tidies targets, joins headers or refuses odd methods). */
import { connect, type Socket } from 'node:net';

export interface RawAnswer {
  readonly status: number;
  /** Status line and headers, as sent. */
  readonly head: string;
  readonly body: string;
}

/** Opens a connection to `baseUrl` (http://host:port). */
export function openSocket(baseUrl: string): Promise<Socket> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => resolve(socket));
    socket.on('error', reject);
  });
}

/** Everything the server sends until the connection closes, split into head and body. */
export function readAnswer(socket: Socket): Promise<RawAnswer> {
  return new Promise((resolve) => {
    let text = '';
    socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => {
      const [head, ...rest] = text.split('\r\n\r\n');
      resolve({ status: Number(head!.split(' ')[1]), head: head!, body: rest.join('\r\n\r\n') });
    });
  });
}

/** Sends `request` (a whole request, head and body, as written) on a new connection. */
export async function rawRequest(baseUrl: string, request: string): Promise<RawAnswer> {
  const socket = await openSocket(baseUrl);
  const answer = readAnswer(socket);
  socket.write(request);
  return answer;
}
