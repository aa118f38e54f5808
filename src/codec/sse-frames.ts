/**
 * Finds where each event of a `text/event-stream` ends, on the bytes as they are relayed, so the
 * gateway can add an `id:` field line to an event without touching any other byte (stream
 * resume, docs/fleet.md "Stream resume"). An event is every line up to a blank line (W3C HTML
 * "server-sent events" §9.2.6: LF, CR or CRLF line ends), comment-only blocks included.
 *
 * Unlike the inspector's decoder (sse.ts) this one hands out the event's own bytes, whole, and
 * nothing else; the bytes of an event that spans chunks are held until its blank line (a client
 * dispatches nothing before it anyway). An event longer than `maxEventBytes` is not held: the
 * framer gives up and passes every byte on as it comes (`passthrough`), unframed.
 */
const LF = 0x0a;
const CR = 0x0d;
const D = 0x64;
const A = 0x61;
const T = 0x74;
const COLON = 0x3a;

export interface SseFrame {
  /** The event's bytes, its closing blank line included. */
  readonly bytes: Buffer;
  /** Bytes of the closing blank line's own line end (1 or 2): a field line goes just before them. */
  readonly blankLength: number;
  /** It has a `data` field: clients dispatch it (a comment-only block is not an event). */
  readonly hasData: boolean;
}

export interface SseFramer {
  /** What `chunk` completes: whole events, or (after giving up) raw bytes with `blankLength` 0. */
  push(chunk: Buffer): SseFrame[];
  /** The bytes held of an event the stream ended inside of (empty if none). */
  rest(): Buffer;
  /** An event was longer than the cap: every byte since is passed on unframed. */
  readonly passthrough: boolean;
}

const EMPTY = Buffer.alloc(0);

/** A line that is the `data` field: `data` then `:` or the line's end. */
function isDataLine(buf: Buffer, start: number, end: number): boolean {
  const n = end - start;
  if (n < 4 || buf[start] !== D || buf[start + 1] !== A || buf[start + 2] !== T || buf[start + 3] !== A) return false;
  return n === 4 || buf[start + 4] === COLON;
}

export function createSseFramer(maxEventBytes: number): SseFramer {
  let carry = EMPTY;
  let pos = 0; // where scanning goes on in `carry`
  let lineStart = 0;
  let hasData = false;
  let passthrough = false;

  function push(chunk: Buffer): SseFrame[] {
    if (passthrough) return [{ bytes: chunk, blankLength: 0, hasData: false }];
    const buf = carry.length === 0 ? chunk : Buffer.concat([carry, chunk]);
    const frames: SseFrame[] = [];
    let blockStart = 0;
    let i = pos;
    // Line ends are found by native scans (Buffer.indexOf), each kept until passed, not by a
    // loop over every byte in JavaScript: an event's bytes are walked once, whatever its size.
    let lf = buf.indexOf(LF, i);
    let cr = buf.indexOf(CR, i);
    for (; i < buf.length; i++) {
      if (lf !== -1 && lf < i) lf = buf.indexOf(LF, i);
      if (cr !== -1 && cr < i) cr = buf.indexOf(CR, i);
      const next = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
      if (next === -1) {
        i = buf.length;
        break;
      }
      i = next;
      const byte = buf[i];
      let end = 1;
      if (byte === CR) {
        if (i + 1 === buf.length) break; // a CR last: its LF may come next
        if (buf[i + 1] === LF) end = 2;
      }
      if (i === lineStart) {
        frames.push({ bytes: buf.subarray(blockStart, i + end), blankLength: end, hasData });
        blockStart = i + end;
        hasData = false;
      } else if (!hasData && isDataLine(buf, lineStart, i)) hasData = true;
      i += end - 1;
      lineStart = i + 1;
    }
    return keep(buf, blockStart, i, frames);
  }

  /** Holds the unfinished event (a copy: the chunk is not kept alive), or gives up past the cap. */
  function keep(buf: Buffer, blockStart: number, scanned: number, frames: SseFrame[]): SseFrame[] {
    const held = buf.length - blockStart;
    if (held > maxEventBytes) {
      passthrough = true;
      frames.push({ bytes: buf.subarray(blockStart), blankLength: 0, hasData: false });
      carry = EMPTY;
      return frames;
    }
    carry = held === 0 ? EMPTY : Buffer.from(buf.subarray(blockStart));
    pos = scanned - blockStart;
    lineStart -= blockStart;
    return frames;
  }

  return {
    push,
    rest: () => carry,
    get passthrough() {
      return passthrough;
    },
  };
}

/** The event's bytes with `line` (a whole field line, its line end included) just before its closing blank line. */
export function withFieldLine(frame: SseFrame, line: Buffer): Buffer {
  const { bytes, blankLength } = frame;
  const cut = bytes.length - blankLength;
  return Buffer.concat([bytes.subarray(0, cut), line, bytes.subarray(cut)]);
}

/** The event's data as a client reads it (its `data` lines joined with LF; one space after `:` dropped). */
export function frameData(frame: SseFrame): string {
  const single = singleLineData(frame);
  if (single !== undefined) return single;
  const { bytes } = frame;
  const parts: string[] = [];
  let start = 0;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (byte !== LF && byte !== CR) continue;
    if (isDataLine(bytes, start, i)) {
      let from = start + 4;
      if (bytes[from] === COLON) from++;
      if (bytes[from] === 0x20) from++;
      parts.push(bytes.toString('utf8', Math.min(from, i), i));
    }
    if (byte === CR && bytes[i + 1] === LF) i++;
    start = i + 1;
  }
  return parts.join('\n');
}

/**
 * The data of an event that is one `data` line and its blank line, both ended by LF, with no CR
 * anywhere (what agents write), found by two native scans (Buffer.indexOf) rather than a loop over
 * every byte in JavaScript; undefined for any other event. The event then has no other field. A
 * translated stream reads every event's data (bench/ANALYSIS.md, "Protocol translation").
 */
export function singleLineData(frame: SseFrame): string | undefined {
  const { bytes } = frame;
  const end = bytes.length - 2; // where the data line's LF must be
  if (end < 4 || bytes[end + 1] !== LF || bytes.indexOf(LF) !== end || bytes.indexOf(CR) !== -1) return undefined;
  if (!isDataLine(bytes, 0, end)) return undefined;
  let from = 4;
  if (bytes[from] === COLON) from++;
  if (bytes[from] === 0x20) from++;
  return bytes.toString('utf8', Math.min(from, end), end);
}

/** The closing blank line's line-end length of a whole event's bytes (as `SseFrame.blankLength`). */
export function blankLengthOf(bytes: Uint8Array): number {
  const n = bytes.length;
  return n >= 2 && bytes[n - 1] === LF && bytes[n - 2] === CR ? 2 : 1;
}
