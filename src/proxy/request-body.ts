/**
 * Reads the start of a request body before it is forwarded. A2A requests are small JSON
 * documents, so almost always the whole body fits under the cap: the gateway then knows the
 * operation and JSON-RPC id before it talks to the agent (needed for errors in the caller's
 * protocol and, later, for the timeout rescue) and sends one buffer upstream. A body larger
 * than the cap (an inline file part) is streamed: the prefix first, then the rest as it arrives.
 */
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';

export interface RequestBody {
  /** The bytes read so far (the whole body when `complete`). */
  readonly prefix: Buffer;
  readonly complete: boolean;
  /** What to hand to the upstream client: a buffer, a stream of the rest, or nothing. */
  readonly forward: Buffer | Readable | null;
}

const EMPTY: RequestBody = { prefix: Buffer.alloc(0), complete: true, forward: null };

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  if (length !== undefined) return length !== '0';
  return req.headers['transfer-encoding'] !== undefined;
}

async function* prefixThenRest(
  prefix: Buffer,
  req: IncomingMessage,
  onChunk: (chunk: Buffer) => void,
): AsyncIterable<Buffer> {
  yield prefix;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    onChunk(chunk);
    yield chunk;
  }
}

/** Reads up to `cap` bytes; `onChunk` sees every chunk of the body, including those streamed later. */
export function readRequestBody(
  req: IncomingMessage,
  cap: number,
  onChunk: (chunk: Buffer) => void,
): Promise<RequestBody> {
  if (!hasBody(req)) return Promise.resolve(EMPTY);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      onChunk(chunk);
      chunks.push(chunk);
      size += chunk.length;
      if (size > cap) {
        req.pause();
        cleanup();
        const prefix = Buffer.concat(chunks, size);
        resolve({
          prefix,
          complete: false,
          forward: Readable.from(prefixThenRest(prefix, req, onChunk), { objectMode: false }),
        });
      }
    };
    const onEnd = () => {
      cleanup();
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
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
