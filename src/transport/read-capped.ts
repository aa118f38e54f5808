/**
 * Reads an upstream response body whole, but never more than `maxBytes` of it (principle 19): a
 * declared Content-Length past the cap is refused before anything is read, and a body that grows
 * past it is abandoned at once (destroying it closes the agent's connection, so nothing more
 * arrives). Used where the gateway must hold a whole answer: card fetches, the timeout rescue's
 * calls. The caller says what "too large" means for it.
 */
import type { Dispatcher } from 'undici';

/** The body, or `undefined` when it was (or declared itself) larger than `maxBytes`. */
export async function readCapped(response: Dispatcher.ResponseData, maxBytes: number): Promise<Buffer | undefined> {
  const declared = response.headers['content-length'];
  if (declared !== undefined && Number(declared) > maxBytes) return discardBody(response.body);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) return discardBody(response.body);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/** Drops a body the gateway will not read (closing the agent's connection). */
export function discardBody(body: Dispatcher.ResponseData['body']): undefined {
  body.on('error', () => {}); // undici reports its own abort as an error
  body.destroy();
  return undefined;
}
