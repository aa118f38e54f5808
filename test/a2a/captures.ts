/**
 * Parser for the recorded exchanges in test/fixtures/captures (format in its README.md).
 * Works on bytes: bodies are byte-exact and already de-chunked. A request body is cut by its
 * Content-Length (every recorded request with a body has one); a response body runs to the end
 * of the file or to the "connection closed by client" marker.
 */
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The recorded exchanges, kept in the repository (test/fixtures/captures). */
export const CAPTURE_DIR = fileURLToPath(new URL('../fixtures/captures/', import.meta.url));

export interface CapturedMessageHead {
  /** Headers in recorded order and case. */
  readonly rawHeaders: ReadonlyArray<readonly [string, string]>;
  /** Lower-cased names, repeated headers joined with ", ". */
  readonly headers: Readonly<Record<string, string>>;
}

export interface CapturedRequest extends CapturedMessageHead {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly body: Uint8Array;
}

export interface CapturedResponse extends CapturedMessageHead {
  readonly status: number;
  readonly body: Uint8Array;
  /** The client hung up before the end of the body. */
  readonly aborted: boolean;
}

export interface Capture {
  readonly name: string;
  readonly label: string;
  readonly request: CapturedRequest;
  /** Absent when the client closed the connection before any response. */
  readonly response: CapturedResponse | undefined;
  /** Sizes and times of the body's TCP reads, from the `.timing.txt` file beside it. */
  readonly reads: ReadonlyArray<{ readonly ms: number; readonly bytes: number }> | undefined;
}

const RESPONSE_MARK = '\n### response';
const NO_RESPONSE_MARK = '\n### (client closed the connection';
const ABORT_MARK = '\n### (connection closed by client before end of body)';

export function listCaptures(): string[] {
  return readdirSync(CAPTURE_DIR)
    .filter((f) => f.endsWith('.http'))
    .sort();
}

export function loadCapture(name: string): Capture {
  const bytes = new Uint8Array(readFileSync(join(CAPTURE_DIR, name)));
  return parseCapture(name, bytes, readTiming(name));
}

export function parseCapture(name: string, bytes: Uint8Array, reads?: Capture['reads']): Capture {
  const text = latin1(bytes); // 1 char per byte, so string offsets are byte offsets
  const labelEnd = text.indexOf('\n');
  const label = text.slice(4, labelEnd);
  const requestEnd = firstIndex(text, [RESPONSE_MARK, NO_RESPONSE_MARK], labelEnd);
  if (requestEnd < 0) throw new Error(`${name}: no response section`);
  const request = parseRequest(name, text, bytes, labelEnd + 1, requestEnd);
  const response = text.startsWith(RESPONSE_MARK, requestEnd)
    ? parseResponse(name, text, bytes, requestEnd)
    : undefined;
  return { name, label, request, response, reads };
}

function parseRequest(name: string, text: string, bytes: Uint8Array, start: number, end: number): CapturedRequest {
  const headEnd = text.indexOf('\n\n', start);
  const [requestLine, ...headerLines] = text.slice(start, headEnd).split('\n');
  const [method, target] = (requestLine ?? '').split(' ');
  if (method === undefined || target === undefined) throw new Error(`${name}: bad request line`);
  const head = parseHeaders(headerLines);
  const bodyStart = headEnd + 2;
  const declared = head.headers['content-length'];
  const length = declared === undefined ? 0 : Number(declared);
  const rest = text.slice(bodyStart + length, end);
  if (!/^\n*$/.test(rest)) throw new Error(`${name}: request body longer than its Content-Length`);
  const q = target.indexOf('?');
  return {
    ...head,
    method,
    path: q < 0 ? target : target.slice(0, q),
    query: q < 0 ? '' : target.slice(q + 1),
    body: bytes.slice(bodyStart, bodyStart + length),
  };
}

function parseResponse(name: string, text: string, bytes: Uint8Array, markAt: number): CapturedResponse {
  const statusStart = text.indexOf('\n', markAt + 1) + 1;
  let headEnd = text.indexOf('\n\n', statusStart);
  const aborted = text.includes(ABORT_MARK, statusStart);
  const bodyEnd = aborted ? text.indexOf(ABORT_MARK, statusStart) : text.length;
  if (headEnd < 0 || headEnd > bodyEnd) headEnd = text.endsWith('\n') ? text.length - 1 : text.length;
  const [statusLine, ...headerLines] = text.slice(statusStart, headEnd).split('\n');
  const status = Number((statusLine ?? '').split(' ')[1]);
  if (!Number.isInteger(status)) throw new Error(`${name}: bad status line ${statusLine}`);
  return {
    ...parseHeaders(headerLines),
    status,
    body: bytes.slice(Math.min(headEnd + 2, bodyEnd), bodyEnd),
    aborted,
  };
}

function parseHeaders(lines: string[]): CapturedMessageHead {
  const rawHeaders: Array<[string, string]> = [];
  const headers: Record<string, string> = {};
  for (const line of lines) {
    if (line === '') continue;
    const colon = line.indexOf(':');
    const nameRaw = line.slice(0, colon);
    const value = line.slice(colon + 1).trim();
    rawHeaders.push([nameRaw, value]);
    const key = nameRaw.toLowerCase();
    headers[key] = headers[key] === undefined ? value : `${headers[key]}, ${value}`;
  }
  return { rawHeaders, headers };
}

function readTiming(name: string): Capture['reads'] {
  const file = join(CAPTURE_DIR, name.replace(/\.http$/, '.timing.txt'));
  if (!existsSync(file)) return undefined;
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((line) => {
      const m = /^\+(\d+)ms (\d+)B$/.exec(line.trim());
      if (m === null) throw new Error(`${file}: bad line ${line}`);
      return { ms: Number(m[1]), bytes: Number(m[2]) };
    });
}

function firstIndex(text: string, needles: string[], from: number): number {
  const found = needles.map((n) => text.indexOf(n, from)).filter((i) => i >= 0);
  return found.length === 0 ? -1 : Math.min(...found);
}

function latin1(bytes: Uint8Array): string {
  return new TextDecoder('latin1').decode(bytes);
}

/** An agent card as recorded: the 200 answer to a well-known card path (spec §8.2), parsed. */
export interface RecordedCard {
  readonly name: string;
  /** The recorded agent's own address (`http://` + the request's Host), the card rewrite's agent URL. */
  readonly agentUrl: string;
  readonly bytes: Uint8Array;
  readonly text: string;
  readonly card: Record<string, unknown>;
}

const CARD_PATHS = new Set(['/.well-known/agent-card.json', '/.well-known/agent.json']);

/** Every recorded agent card (a 304 or a non-object body is none). */
export function recordedCards(): RecordedCard[] {
  const out: RecordedCard[] = [];
  for (const name of listCaptures()) {
    const { request, response } = loadCapture(name);
    if (!CARD_PATHS.has(request.path) || response?.status !== 200) continue;
    const text = new TextDecoder().decode(response.body);
    const card: unknown = JSON.parse(text);
    if (card === null || typeof card !== 'object' || Array.isArray(card)) continue;
    const agentUrl = `http://${request.headers['host']}`;
    out.push({ name, agentUrl, bytes: response.body, text, card: card as Record<string, unknown> });
  }
  return out;
}
