/**
 * Appends JSON text to a growing byte buffer, one character at a time in plain JavaScript.
 * Why by hand: span export writes thousands of short, mostly ASCII strings per batch; building
 * them as JavaScript strings and encoding the result costs ~4× more on Node 20 (concatenation
 * builds rope strings that must be flattened, then copied again by TextEncoder), see otlp-json.ts.
 */
const literals = new Map<string, Uint8Array>();
/** From this length on, strings are checked and copied natively (measured crossover on Node 20). */
const LONG = 24;
/** Characters JSON must escape, and everything outside printable ASCII. */
// eslint-disable-next-line no-control-regex
const NEEDS_ESCAPE = /[\u0000-\u001f"\\\u007f-\uffff]/;
/** Literals come from code and from attribute keys; this bounds what odd keys can add. */
const MAX_LITERALS = 4096;

export class JsonWriter {
  private buf: Buffer;
  private pos = 0;

  constructor(initialBytes = 64 * 1024) {
    this.buf = Buffer.allocUnsafe(initialBytes);
  }

  /** The bytes written so far (a copy: the writer can be reused). */
  bytes(): Uint8Array {
    return new Uint8Array(this.buf.subarray(0, this.pos));
  }

  /** Starts over, keeping the buffer: one writer serves every batch. */
  reset(): this {
    this.pos = 0;
    return this;
  }

  /**
   * Literal ASCII JSON text that recurs (punctuation, field names, attribute keys): encoded once,
   * then copied as bytes.
   */
  literal(text: string): this {
    let bytes = literals.get(text);
    if (bytes === undefined) {
      bytes = Buffer.from(text, 'latin1');
      if (literals.size < MAX_LITERALS) literals.set(text, bytes);
    }
    this.reserve(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
    return this;
  }

  /** ASCII text written as it is: numbers and other text that does not recur. */
  raw(text: string): this {
    const n = text.length;
    this.reserve(n);
    const buf = this.buf;
    let pos = this.pos;
    for (let i = 0; i < n; i++) buf[pos++] = text.charCodeAt(i);
    this.pos = pos;
    return this;
  }

  /** A JSON string literal. Printable ASCII is copied; anything else goes through JSON.stringify. */
  string(text: string): this {
    const n = text.length;
    if (n > LONG) {
      // Ids, paths, messages: one native check and one native copy beat a loop per character.
      if (NEEDS_ESCAPE.test(text)) return this.escaped(text);
      this.reserve(n + 2);
      this.buf[this.pos++] = 0x22;
      this.pos += this.buf.write(text, this.pos, 'latin1');
      this.buf[this.pos++] = 0x22;
      return this;
    }
    this.reserve(n + 2);
    const buf = this.buf;
    let pos = this.pos;
    buf[pos++] = 0x22;
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c < 0x20 || c === 0x22 || c === 0x5c || c > 0x7e) return this.escaped(text);
      buf[pos++] = c;
    }
    buf[pos++] = 0x22;
    this.pos = pos;
    return this;
  }

  /** A JSON number, as JSON.stringify writes it (non-finite numbers become null). */
  number(value: number): this {
    return this.raw(Number.isFinite(value) ? String(value) : 'null');
  }

  private escaped(text: string): this {
    const json = JSON.stringify(text);
    this.reserve(Buffer.byteLength(json));
    this.pos += this.buf.write(json, this.pos, 'utf8');
    return this;
  }

  private reserve(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }
}
