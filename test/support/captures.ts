/**
 * Reads the recorded exchanges in ../shared/a2a/captures (format: captures/README.md). Bodies are
 * kept as bytes, exactly as recorded; `*.timing.txt` gives the response body's TCP reads.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

export const CAPTURES_DIR = fileURLToPath(new URL('../../../shared/a2a/captures/', import.meta.url));

export interface CapturedMessage {
  /** Request: [method, path]; response: [status, reason]. */
  readonly startLine: string;
  readonly headers: Array<[string, string]>;
  readonly body: Buffer;
}

export interface Capture {
  readonly name: string;
  readonly request: CapturedMessage & { method: string; path: string };
  readonly response?: CapturedMessage & { status: number };
  /** How the recorded response ended early, if it did. */
  readonly aborted?: string;
  /** Response body reads: [ms since request, bytes]. */
  readonly timing?: Array<[number, number]>;
}

function indexOf(buf: Buffer, text: string, from = 0): number {
  return buf.indexOf(Buffer.from(text, 'latin1'), from);
}

function parseHead(buf: Buffer, start: number): { startLine: string; headers: Array<[string, string]>; bodyStart: number } {
  const end = indexOf(buf, '\n\n', start);
  const lines = buf.subarray(start, end === -1 ? buf.length : end).toString('latin1').split('\n');
  const headers = lines.slice(1).map((l): [string, string] => {
    const colon = l.indexOf(':');
    return [l.slice(0, colon), l.slice(colon + 1).trim()];
  });
  return { startLine: lines[0]!, headers, bodyStart: end === -1 ? buf.length : end + 2 };
}

export function header(msg: CapturedMessage, name: string): string | undefined {
  return msg.headers.find(([n]) => n.toLowerCase() === name.toLowerCase())?.[1];
}

export function parseCapture(file: string): Capture {
  const buf = readFileSync(join(CAPTURES_DIR, file));
  const name = file.replace(/\.http$/, '');
  const firstNewline = buf.indexOf(0x0a);
  const req = parseHead(buf, firstNewline + 1);
  const [method, path] = req.startLine.split(' ') as [string, string];
  const responseMarker = indexOf(buf, '\n\n### response (', req.bodyStart - 1);
  const abortMarker = indexOf(buf, '\n\n### (client closed', req.bodyStart - 1);
  const reqEnd = responseMarker !== -1 ? responseMarker : abortMarker !== -1 ? abortMarker : buf.length;
  const request = { ...req, method, path, body: buf.subarray(Math.min(req.bodyStart, reqEnd), reqEnd) };
  if (responseMarker === -1) {
    return { name, request, aborted: abortMarker === -1 ? undefined : buf.subarray(abortMarker + 2).toString('utf8').trim() };
  }
  const resHeadStart = buf.indexOf(0x0a, responseMarker + 3) + 1;
  const res = parseHead(buf, resHeadStart);
  const cut = indexOf(buf, '\n### (connection closed', res.bodyStart);
  const body = buf.subarray(res.bodyStart, cut === -1 ? buf.length : cut);
  const status = Number(res.startLine.split(' ')[1]);
  const timingFile = join(CAPTURES_DIR, `${name}.timing.txt`);
  const timing = existsSync(timingFile)
    ? readFileSync(timingFile, 'utf8')
        .trim()
        .split('\n')
        .map((l): [number, number] => {
          const m = /^\+(\d+)ms (\d+)B$/.exec(l.trim());
          return [Number(m![1]), Number(m![2])];
        })
    : undefined;
  return {
    name,
    request,
    response: { ...res, status, body },
    aborted: cut === -1 ? undefined : buf.subarray(cut + 1).toString('utf8').trim(),
    timing,
  };
}

/** Every capture of proxied traffic (push webhook deliveries excluded). */
export function listCaptures(): string[] {
  return readdirSync(CAPTURES_DIR).filter((f) => f.endsWith('.http') && !f.includes('--push-')).sort();
}
