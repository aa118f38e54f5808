// Loads the recorded gRPC exchanges in test/fixtures/captures/*.grpc (format: README there,
// "gRPC captures"; writer: test/fixtures/captures/record-grpc.ts).
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseGrpcCapture } from './grpc-capture-format.js';
import type { HeaderList } from './h2-recorder.js';

export const GRPC_CAPTURE_DIR = fileURLToPath(new URL('../fixtures/captures/', import.meta.url));
export const GRPC_CAPTURE_EXT = '.grpc';

export interface GrpcCapture {
  label: string;
  request: { headers: HeaderList; chunks: Buffer[] };
  response: {
    headers: HeaderList;
    /** `at`: ms since the request's headers arrived. */
    chunks: Array<{ at: number; bytes: Buffer }>;
    /** For a trailers-only response, the same block as `headers`. */
    trailers: HeaderList;
    trailersOnly: boolean;
  };
  totalMs: number;
  reset?: { code: number; at: number };
}

/** Capture names (file names without `.grpc`), sorted. */
export function listGrpcCaptures(): string[] {
  return readdirSync(GRPC_CAPTURE_DIR)
    .filter((f) => f.endsWith(GRPC_CAPTURE_EXT))
    .map((f) => f.slice(0, -GRPC_CAPTURE_EXT.length))
    .sort();
}

/** `name` with or without the `.grpc` extension, e.g. 'v1--grpc-send-question'. */
export function loadGrpcCapture(name: string): GrpcCapture {
  const file = name.endsWith(GRPC_CAPTURE_EXT) ? name : name + GRPC_CAPTURE_EXT;
  const parsed = parseGrpcCapture(readFileSync(GRPC_CAPTURE_DIR + file, 'utf8'));
  return { ...parsed, request: { ...parsed.request, chunks: parsed.request.chunks.map((c) => c.bytes) } };
}

/** The value of header `name` (lowercase) in `headers`, if any. */
export function headerValue(headers: HeaderList, name: string): string | undefined {
  return headers.find(([k]) => k === name)?.[1];
}
