// The text format of a recorded gRPC stream (test/fixtures/captures/README.md, "gRPC captures"):
// header blocks as `name: value` lines, DATA chunks as `+<ms> <base64>` lines, one per chunk.
import type { H2Exchange, HeaderList, RecordedChunk } from './h2-recorder.js';

export interface ParsedGrpcCapture extends H2Exchange {
  label: string;
}

/** One exchange as the capture file's text. */
export function formatGrpcCapture(label: string, ex: H2Exchange): string {
  const { request, response } = ex;
  const lines = [`### ${label}`, '## request', ...headerLines(request.headers), '## request data'];
  lines.push(...chunkLines(request.chunks));
  if (response.trailersOnly) {
    lines.push(`## response, trailers-only (${ex.totalMs} ms)`, ...headerLines(response.headers));
  } else {
    lines.push(`## response (${ex.totalMs} ms)`, ...headerLines(response.headers), '## response data');
    lines.push(...chunkLines(response.chunks), '## trailers', ...headerLines(response.trailers));
  }
  if (ex.reset) lines.push(`## reset code ${ex.reset.code} at +${ex.reset.at}`);
  return lines.join('\n') + '\n';
}

const headerLines = (h: HeaderList) => h.map(([k, v]) => `${k}: ${v}`);
const chunkLines = (c: RecordedChunk[]) => c.map((x) => `+${x.at} ${x.bytes.toString('base64')}`);

type Section = 'request' | 'request data' | 'response' | 'response data' | 'trailers';

/** Parses what formatGrpcCapture wrote; throws on anything else. */
export function parseGrpcCapture(text: string): ParsedGrpcCapture {
  const lines = text.replace(/\n$/, '').split('\n');
  const label = /^### (.*)$/.exec(lines[0] ?? '')?.[1];
  if (label === undefined) throw new Error('gRPC capture: first line must be "### <label>"');
  const out: ParsedGrpcCapture = {
    label,
    request: { headers: [], chunks: [] },
    response: { headers: [], chunks: [], trailers: [], trailersOnly: false },
    totalMs: 0,
  };
  let section: Section | undefined;
  for (const line of lines.slice(1)) {
    if (line.startsWith('## ')) section = openSection(line, out);
    else if (section === undefined) throw new Error(`gRPC capture: line outside a section: ${line}`);
    else addLine(out, section, line);
  }
  if (out.response.trailersOnly) out.response.trailers = out.response.headers;
  return out;
}

function openSection(line: string, out: ParsedGrpcCapture): Section | undefined {
  const response = /^## response(, trailers-only)? \((\d+) ms\)$/.exec(line);
  if (response) {
    out.response.trailersOnly = response[1] !== undefined;
    out.totalMs = Number(response[2]);
    return 'response';
  }
  const reset = /^## reset code (\d+) at \+(\d+)$/.exec(line);
  if (reset) {
    out.reset = { code: Number(reset[1]), at: Number(reset[2]) };
    return undefined;
  }
  const name = line.slice(3);
  if (name === 'request' || name === 'request data' || name === 'response data' || name === 'trailers') return name;
  throw new Error(`gRPC capture: unknown section ${line}`);
}

function addLine(out: ParsedGrpcCapture, section: Section, line: string): void {
  if (section === 'request data') out.request.chunks.push(parseChunk(line));
  else if (section === 'response data') out.response.chunks.push(parseChunk(line));
  else if (section === 'request') out.request.headers.push(parseHeader(line));
  else if (section === 'response') out.response.headers.push(parseHeader(line));
  else out.response.trailers.push(parseHeader(line));
}

/** `name: value`; pseudo-header names start with ':', so the separator is searched after it. */
function parseHeader(line: string): [string, string] {
  const at = line.indexOf(': ', 1);
  if (at < 0) throw new Error(`gRPC capture: bad header line: ${line}`);
  return [line.slice(0, at), line.slice(at + 2)];
}

function parseChunk(line: string): RecordedChunk {
  const m = /^\+(\d+) ([A-Za-z0-9+/]*={0,2})$/.exec(line);
  if (!m) throw new Error(`gRPC capture: bad data line: ${line}`);
  return { at: Number(m[1]), bytes: Buffer.from(m[2]!, 'base64') };
}
